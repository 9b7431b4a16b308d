"""`workings refresh`: the one command that touches the network (see the README, "Keeping sources true").

Importing this package imports nothing heavy; `workings.refresh.refresh` (requests) and
`workings.refresh.hub` (huggingface_hub) load only when a refresh runs.
"""
