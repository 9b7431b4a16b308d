"""Which claim, if any, each figure of a draft is: identity first, then the value.

A figure's claim is found by evidence of identity only (see ``identity``): the editor's marker
after it, or its sentence being the claim's ``said`` with the figure standing where the claim's
figure stands. A sentence that names nothing (no model, no literal number: "That is 192 KiB.") is
taken for a claim's only beside a sentence, at most ``REACH`` sentences away, that is a claim of
the same group, or when the draft is that group's own text (``--issue``): so another model's
"That is 128 KiB." is never held against Qwen's 192 KiB.

Then the value decides: agreeing with a ``verified`` claim is ``backed``; with a recorded erratum,
``erratum``; with an ``unchecked`` one, ``unchecked``; agreeing only with the recomputed value
while the record prints another figure is ``drift`` with the ledger behind (update the record);
another value of the same dimension is ``drift``; only under another reading of its unit,
``ambiguous``. A figure with no claim of its own is ``unbacked``, whatever value it shares with
claims elsewhere: those printing it are named in a hint (``claims.Claims.same_value``), with the
marker that would tie them.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict

from .. import units
from . import identity, match
from .claims import Claims
from .finder import Figure, Found
from .text import PIPE, SUPERSCRIPTS

ALIGN = 0.5   # share of a claim's words a sentence must hold before its identity is tested
REACH = 2     # sentences either side where a named sentence anchors one that names nothing
SUBJECT_BACK = 6  # sentences back where a sentence naming no family finds the family it is about
PASSING_BACK = 12  # and, past a passing mention of another model in a claim of its group, how far back
LEAD_IN = 7  # the "level" of a lead-in on its own line: any heading ends what it heads


def _supposed(found: Found) -> tuple[frozenset[int], frozenset[int]]:
    """The sentences that follow, in their paragraph, one opening a supposition ("Now suppose Qwen had
    kept one KV head per query head. At the full window, one chat needs 198.6 GB ...", "What if the
    window were only 131,072 tokens? The cache is ..."): what they say is said of the supposed model,
    so they are no claim's, nor anchor one; so too what follows an imperative that sets another scope ("Now
    take a single layer on its own."), a section under a heading that narrows it ("### The 6.7x figure was
    measured on the preview build") or a folded block whose summary does ("<summary>Retracted
    figures</summary>"), what a sentence disowns ahead ("The next line ... is false."), and a
    sentence a retort takes back ("... 8 KV heads. Not."). Second, those of them only a supposition covers
    (in its paragraph, or under a heading that supposes: "What if every query head had its own KV head?"),
    where a claim whose own sentence says what would be ("... the Qwen cache would be 5 times bigger.") is
    still its claim's."""
    opened = -1  # the paragraph in which a supposition was opened
    narrowed = 0  # the level of the heading in force that narrows its section ("## Myths"), 0: none
    disowned = (-1, -1)  # the sentence before which a sentence disowns what follows, and the paragraph it ends with
    folded = False  # inside a "<details>" whose "<summary>" narrows it ("Retracted figures"), to its "</details>"
    supposing = False  # the heading in force narrows by a supposition ("## What if ...", "## If Qwen had ...")
    hypothesis = False  # the supposition opened in ``opened`` is one ("What if ...?"), not a scope or a label
    parent = -1  # the indent of a list item that narrows the items below it ("- Rumours from the Discord:")
    out, hypothetical = set(), set()
    for i, sentence in enumerate(found.sentences):
        paragraph = found.paragraphs[i] if i < len(found.paragraphs) else -2
        level = found.headings[i] if i < len(found.headings) else 0
        if level and narrowed and level <= narrowed:
            narrowed = 0  # the next heading of its level ends a narrowed section
        if level and not narrowed and identity.narrows(sentence):
            narrowed, supposing = level, identity.supposes_heading(sentence)
        if "<" in sentence and (summary := _SUMMARY.search(sentence)) is not None and identity.narrows(summary.group(1)):
            folded = True
        item = found.items[i] if i < len(found.items) else -1
        if parent >= 0 and (item <= parent and (item >= 0 or paragraph != found.paragraphs[i - 1])):
            parent = -1  # a list item as far out, or a paragraph after the list, ends its children
        within = parent >= 0 and item > parent
        if narrowed or folded or within or paragraph == opened or i < disowned[0] or paragraph == disowned[1]:
            out.add(i)
            if (supposing if narrowed else paragraph == opened and hypothesis) and not folded \
                    and i >= disowned[0] and paragraph != disowned[1]:
                hypothetical.add(i)
        elif identity.supposes(sentence):
            opened, hypothesis = paragraph, identity.hypothesises(sentence)
            if sentence.rstrip(" *_").endswith(":") and i + 1 < len(found.paragraphs) \
                    and found.paragraphs[i + 1] != paragraph and not narrowed:
                narrowed, supposing = LEAD_IN, hypothesis  # a lead-in on its own line ("Rumour:", "The following
                                                           # is satire:") heads what follows, to the next heading
        if folded and "</details>" in sentence.lower():
            folded = False
        if item >= 0 and parent < 0 and sentence.rstrip(" *_").endswith(":") \
                and (identity.narrows(sentence) or identity.disowns(sentence)):
            parent = item  # "1. Things a vendor slide claimed, none of which we could reproduce:"
        taken: list[int] = []
        if i and identity.retorts(sentence):
            if found.paragraphs[i - 1:i] == found.paragraphs[i:i + 1]:
                taken = [i - 1]  # "Its config.json gives 48 layers and 8 KV heads. Not."
            elif _answers(found, i):  # "That is wrong." or "They are mistaken." opening the next paragraph
                taken = _paragraph_of(found, i - 1)
        elif i and identity.attributes_disowning(sentence):
            taken = [k for k in _paragraph_of(found, i - 1) if k < i]  # "> ... \n> — a forum post, which we dispute"
        out.update(taken)
        hypothetical.difference_update(taken)
        if (ahead := identity.disowns_next(sentence)) == 1:
            disowned = (i + 2, -1)  # "The next line circulated on social media last week, and it is false."
        elif ahead == 2 and i + 1 < len(found.paragraphs):  # "The following claims are myths.": the rest of
            disowned = (-1, found.paragraphs[i + 1])      # its paragraph, or the next one where it ends its own
    return frozenset(out), frozenset(hypothetical)


def _paragraph_of(found: Found, i: int) -> list[int]:
    """The sentences of sentence ``i``'s paragraph up to ``i``."""
    out = [i]
    while out[-1] > 0 and found.paragraphs[out[-1] - 1] == found.paragraphs[i]:
        out.append(out[-1] - 1)
    return out


def _answers(found: Found, i: int) -> bool:
    """Whether sentence ``i`` opens a paragraph that answers the last sentence of the one before it: prose
    after prose ("A vendor blog wrote: \"...\"" then "That is wrong: the config has 40 layers."), not
    after a heading or a table's row."""
    return (found.headings[i - 1:i + 1] == (0, 0) and found.rows[i - 1] < 0 and found.rows[i] < 0
            and found.paragraphs[i - 1] == found.paragraphs[i] - 1)


def _counterfactual(view: match.ClaimView) -> bool:
    """Whether a claim's own sentence says what would be ("With one KV head per query head, the Qwen cache would
    be 5 times bigger."): a supposition around it is its own."""
    return view.shape is not None and any(t in ("would", "could", "might") for t in view.shape.tokens)


# What a folded block's summary says of it: "<details><summary>Retracted figures</summary> ..."
_SUMMARY = re.compile(r"<summary\b[^<>]{0,200}+>([^<]{0,300}+)</summary>", re.IGNORECASE)


# A table cell that says the rest of its row is false: "| ... 198.6 GB of cache. | False |"
_VERDICT = re.compile(r"[|\s*_]*+(?i:false|wrong|myth|untrue|incorrect|not\s++true|debunked|refuted|retracted|busted|bogus|fake"
                      r"|[❌✗✘✖⛔🚫])[|\s*_.!]*+")


def _disowned(found: Found) -> frozenset[int]:
    """The sentences of a table row that has a cell saying the row is false (``_VERDICT``): "| At the full
    window, one chat needs 198.6 GB of cache. | False |" is a claim the draft disowns."""
    rows: dict[int, list[int]] = defaultdict(list)
    for i, row in enumerate(found.rows):
        if row >= 0:
            rows[row].append(i)
    out: set[int] = set()
    for members in rows.values():
        if len(members) > 1 and any(_VERDICT.fullmatch(found.sentences[i]) for i in members):
            out.update(members)
    return frozenset(out)


def _tables_narrowed(found: Found, starts: list[int]) -> frozenset[int]:
    """The cells of a table whose column's header cell narrows it ("| Rumoured | Confirmed |": the first
    column; "| Under FP8 |") and every row of one whose caption just below does ("*Table 3: projected for
    2027; nothing here is measured.*"). A sentence is a cell's text (or a row's, where no sentence ends in
    it): one that runs over a narrowed column is narrowed whole."""
    out: set[int] = set()
    rows = found.rows
    for i, row in enumerate(rows):
        if row < 0 or i + 1 < len(rows) and rows[i + 1] >= 0 and found.paragraphs[i + 1] == found.paragraphs[i]:
            continue  # only at a table's last sentence
        first = starts[i]
        body = [k for k in range(first, i + 1) if rows[k] != rows[first]]
        after = found.sentences[i + 1] if i + 1 < len(found.sentences) and rows[i + 1] < 0 else ""
        if after and identity.captions_narrowing(after):
            out.update(body)
            continue
        header = " ".join(found.sentences[k] for k in range(first, i + 1) if rows[k] == rows[first])
        narrowed = identity.narrowing_columns(_cells(header))
        if narrowed:
            out.update(k for k in body if narrowed.intersection(_columns_of(found, starts, k)))
    return frozenset(out)


def _cells(row: str) -> list[str]:
    """A table row's cells, the outer pipes dropped: "| a | b |" and "a | b" both give ["a", "b"]."""
    text = row.strip()
    cells = PIPE.split(text)
    if text.startswith("|"):
        cells = cells[1:]
    if cells and not cells[-1].strip() and text.endswith("|"):
        cells = cells[:-1]
    return cells


def _columns_of(found: Found, starts: list[int], k: int) -> range:
    """The columns (from 0) that sentence ``k`` of a table row runs over, counting the row's pipes before it."""
    first = k
    while first > starts[k] and found.rows[first - 1] == found.rows[k]:
        first -= 1
    sentence = found.sentences[k]
    before = sum(len(PIPE.findall(found.sentences[j])) for j in range(first, k))
    lead = 1 if found.sentences[first].lstrip().startswith("|") else 0
    left = len(sentence) - len(sentence.lstrip(" |"))
    right = len(sentence.rstrip(" |"))
    if right <= left:
        return range(0)
    start = before + len(PIPE.findall(sentence, 0, left)) - lead
    stop = before + len(PIPE.findall(sentence, 0, right)) - lead
    return range(start, stop + 1)


def _table_starts(found: Found) -> list[int]:
    """For each sentence, the first sentence of its table (itself where it is in none), worked out once."""
    starts: list[int] = []
    for i, row in enumerate(found.rows):
        same = i and row >= 0 and found.rows[i - 1] >= 0 and found.paragraphs[i - 1] == found.paragraphs[i]
        starts.append(starts[i - 1] if same else i)
    return starts


# A footnote's text starts with its mark: "[^2]:", or "<sup>2</sup>", "\*", "†", "‡" or "¹" (HTML's and print's
# marks); ``_MARK`` finds the mark where the text refers to it; ``_MARKS`` is what a sentence holding one holds
_NOTE = re.compile(rf"\s*+(?:\[\^([^\]\s]{{1,40}}+)\]:|<sup>([^<\s]{{1,10}}+)</sup>|(\\\*|[†‡]|[{SUPERSCRIPTS}]++))")
_MARK = re.compile(rf"\[\^([^\]\s]{{1,40}}+)\](?!:)|<sup>([^<\s]{{1,10}}+)</sup>|(?<=\S)(\\\*|[†‡]|[{SUPERSCRIPTS}]++)")
_MARKS = ("[^", "<sup>", "\\*", "†", "‡", *SUPERSCRIPTS)


def _label(match: re.Match[str]) -> str:
    return match.group(match.lastindex or 0)


def _footnotes(found: Found) -> dict[int, int]:
    """Each sentence of a Markdown footnote ("[^2]: Its config.json gives 48 layers ...", and those after
    it in its paragraph) -> the sentence holding its mark ("Llama-3.1-70B, on the other hand, is
    not.[^2]"): a footnote is about what its mark's sentence is about, wherever the draft prints it."""
    sentences = found.sentences
    marks: dict[str, int] = {}
    for i, sentence in enumerate(sentences):
        if any(mark in sentence for mark in _MARKS):
            note = _NOTE.match(sentence)
            for found_mark in _MARK.finditer(sentence, note.end() if note else 0):
                marks.setdefault(_label(found_mark), i)
    out: dict[int, int] = {}
    label, paragraph = None, None
    for i, sentence in enumerate(sentences):
        here = found.paragraphs[i] if i < len(found.paragraphs) else None
        if (note := _NOTE.match(sentence)) is not None:
            label, paragraph = _label(note), here
        elif here != paragraph:
            label = None
        if label is not None and marks.get(label, i) != i:
            out[i] = marks[label]
    return out


class Identities:
    """For every sentence of the draft (by its place in ``found.sentences``), the claims whose
    ``said`` it is, each with the token offset that maps the draft's places onto ``said``."""

    def __init__(self, found: Found, claims: Claims, issue: str | None = None):
        self.claims, self.issue = claims, issue
        self._words: dict[str, frozenset[str]] = {}
        self._shapes: dict[str, identity.Shape] = {}
        self._pairs: dict[str, list[match.ClaimView]] = {}
        self._offsets: dict[str, dict[int, int]] = {}
        self._shifts: dict[tuple, int | None] = {}
        self._spans = _spans(found)
        self._notes = _footnotes(found)
        self._rows = found.rows
        self._headings = found.headings
        self._table_start = _table_starts(found)
        self._found = found
        supposed, hypothetical = _supposed(found)
        disowned = _disowned(found) | _tables_narrowed(found, self._table_start) | {mark for note, mark in self._notes.items()  # "[^r]: This figure is wrong."
                                       if identity.disowns(_NOTE.sub("", found.sentences[note], count=1))}
        self.accepted = self._accept(found.sentences, supposed | disowned, hypothetical - disowned)
        index = _indexer(found.sentences)
        self.at = [index(figure.sentence, figure.offset) for figure in found.figures]  # each figure's sentence index

    def words(self, text: str) -> frozenset[str]:
        found = self._words.get(text)
        if found is None:
            found = self._words[text] = match.words(text)
        return found

    def shape(self, sentence: str) -> identity.Shape:
        found = self._shapes.get(sentence)
        if found is None:
            found = self._shapes[sentence] = identity.shape(sentence, self._spans.get(sentence, []))
        return found

    def same(self, sentence: str) -> list[match.ClaimView]:
        """Claims whose ``said`` is ``sentence`` (before anchoring)."""
        found = self._pairs.get(sentence)
        if found is None:
            words, draft = self.words(sentence), self.shape(sentence)
            found = self._pairs[sentence] = [
                v for v in self.claims.aligned(words, ALIGN, draft) if v.shape is not None
                and match.align(v, words, words) >= ALIGN and identity.same(draft, v.shape)]
        return found

    def _names(self, sentence: str, view: match.ClaimView) -> bool:
        """Whether the draft's sentence names something as its claim's does: a part of ``said`` ("Its KV
        cache is ... about 3.5KB per token.") names what it prints, not what ``said`` printed around it."""
        if not view.distinctive:
            return False
        if view.shape is None or len(self.shape(sentence).tokens) >= len(view.shape.tokens):
            return True
        return identity.distinctive(sentence, self._spans.get(sentence, []))

    def _accept(self, sentences: tuple[str, ...], supposed: frozenset[int] = frozenset(),
                hypothetical: frozenset[int] = frozenset()) -> list[list[match.ClaimView]]:
        pairs = [self.same(s) if i not in supposed
                 else [v for v in self.same(s) if _counterfactual(v)] if i in hypothetical else []
                 for i, s in enumerate(sentences)]
        # A sentence that names something is its claim's; so is any sentence of the draft's own
        # issue (--issue says the draft is that text).
        accepted = [[v for v in p if self._names(s, v) or v.result.group == self.issue]
                    for s, p in zip(sentences, pairs)]
        if self.issue is not None:  # the draft is that group's text: a sentence naming nothing is its group's
            return accepted         # claims' only ("Its config.json gives 48 layers" in another article is not Qwen's)
        for order in (range(len(pairs)), range(len(pairs) - 1, -1, -1)):  # chains run both ways
            for i in order:
                waiting = [v for v in pairs[i] if v not in accepted[i]]
                if not waiting:
                    continue
                around = [*self._back(i, REACH)[1:], *range(i + 1, min(len(pairs), i + REACH + 1))]
                near = {v.result.group for j in around  # before a table's row: its header, then the prose
                        for v in accepted[j] if not self._between(sentences, accepted, i, j, v)}
                accepted[i].extend(v for v in waiting if v.result.group in near or self._named_before(sentences, i, v))
        return self._about(sentences, accepted)

    def _named_before(self, sentences: tuple[str, ...], i: int, view: match.ClaimView) -> bool:
        """Whether a sentence at most ``REACH`` before the one at ``i`` names the claim's own model, by
        family and version as its id gives them ("Kimi K3. A 2.8-trillion-parameter open model." for
        ".../kimi-k3-parameters"), and it and those between name no other model: the name anchors a
        sentence naming nothing as a claim of its group would."""
        marks = identity.claim_marks(view.result.id, view.result.sources, view.result.about)
        if not marks or not all(version for _, version, _ in marks):
            return False
        own = identity.kin(frozenset(m[0] for m in marks))
        for k in range(i - 1, max(-1, i - REACH - 1), -1):
            named = identity.named_in(sentences[k])
            if named - own:
                return False
            if named and identity.fits(marks, sentences[k], identity.claim_editions(view.result.about)) and any(
                    f in own and v for f, v, _ in identity.mentions_in(sentences[k])):
                return True
        return False

    def _about(self, sentences: tuple[str, ...], accepted: list[list[match.ClaimView]]) -> list[list[match.ClaimView]]:
        """Each sentence's claims, less those about another family of models than the sentence is: a claim
        whose id names a family ("qwen25-14b-weights-gb": Qwen) is not the claim of a sentence that names
        other families and not its, nor of one that names none after a sentence that does, within
        ``SUBJECT_BACK`` sentences ("Meta's Llama 3 70B comes first. Its config.json gives 48 layers
        ..."; "Mistral 7B is the model we fit. ... That leaves room for about 286,000 tokens of BF16
        cache."). Makers, hardware, tools named after a model, a comparison and an aside in brackets name
        no subject (``identity.models_in``). A sentence naming another family that is itself a claim of
        the same group is a passing mention (the KV article's "The vLLM paper uses the same sum for
        OPT-13B ..." before Qwen's "At the full window, ..."): the claim's family is looked for further
        back, ``PASSING_BACK`` sentences, and must be found there before another family is. Another model
        of the claim's own family is another model: where the id gives a version or size, the sentence
        must name one that may be it (``identity.fits``: "Qwen3-8B is a much smaller model from the same
        maker. The weights are 29.5 GB." is not "qwen25-14b-weights-gb"'s). A claim whose id names no
        family but a device (".../h100-memory") is held to the nearest device named (``_of_device``). Not
        asked of a group's own text (``--issue``)."""
        return [[v for v in views if (not (marks := identity.claim_marks(v.result.id, v.result.sources, v.result.about))
                 or self._of_family(sentences, accepted, i, marks, v.result.group,
                                    identity.kin(frozenset(m[0] for m in marks)),
                                    identity.claim_editions(v.result.about)))
                 and (marks or not (devices := identity.id_devices(v.result.id))
                      or self._of_device(sentences, i, devices))]
                for i, views in enumerate(accepted)]

    def _back(self, i: int, reach: int) -> list[int]:
        """The sentence at ``i``, then those before it, ``reach`` of them, nearest first: before a
        footnote's sentence, its mark's sentence and those before that (``_footnotes``); before a table
        row's, its table's header row and what stands before the table (a row's subject is named in its
        own cells, its header or the table's caption, not in the rows above it)."""
        start = self._notes.get(i, i - 1)
        if i not in self._notes and i < len(self._rows) and self._rows[i] >= 0:
            first = self._table_start[i]
            header = [k for k in range(first, min(i, first + reach)) if self._rows[k] == self._rows[first]][::-1]
            return [i, *header, *range(first - 1, max(-1, first - 1 - reach), -1)][:reach + 1]
        return [i, *range(start, max(-1, start - reach), -1)]

    def _seen(self, sentences: tuple[str, ...], i: int, k: int) -> str:
        """Sentence ``k`` as sentence ``i`` reads it for its subject: where ``k`` is the header row of ``i``'s
        table and names a subject per column ("| Qwen2.5-14B-Instruct-1M | CodeLlama-34B |"), only the header
        cells over the columns ``i`` stands in; anything else whole."""
        rows = self._rows
        if k == i or not (i < len(rows) and k < len(rows) and rows[i] >= 0 and rows[k] >= 0):
            return sentences[k]
        first = self._table_start[i]
        if self._table_start[k] != first or rows[k] != rows[first] or rows[i] == rows[first]:
            return sentences[k]
        header = list(itertools.takewhile(lambda h: rows[h] == rows[first], range(first, len(rows))))
        cells = _cells(" ".join(sentences[h] for h in header))
        if sum(1 for cell in cells if cell.strip(" *_-:")) < 2:
            return sentences[k]
        if k != header[0]:
            return ""  # the header row is read once, at its first sentence
        columns = _columns_of(self._found, self._table_start, i)
        return " | ".join(cells[c] for c in columns if c < len(cells))

    def _of_device(self, sentences: tuple[str, ...], i: int, devices: frozenset[str]) -> bool:
        """Whether the nearest device named in or before the sentence at ``i`` (``SUBJECT_BACK`` back) is
        one the claim's id names, or none is: "AMD's MI300X is a different card. We count it as 80 GiB."
        is not ".../h100-memory-counted-gib"'s."""
        for k in self._back(i, SUBJECT_BACK):
            named = identity.devices_in(self._seen(sentences, i, k))
            if named:
                return bool(named & devices)
        return True

    def _of_family(self, sentences: tuple[str, ...], accepted: list[list[match.ClaimView]], i: int,
                   marks: tuple[tuple[str, str, str], ...], group: str, own: frozenset[str],
                   editions: frozenset[str] = frozenset()) -> bool:
        passing = False
        for step, k in enumerate(self._back(i, PASSING_BACK)):
            text = self._seen(sentences, i, k)
            if not passing and step > SUBJECT_BACK:
                return True  # no model named near: the sentence is as it was read
            if editions and not identity.same_edition_named(editions, text):
                return False  # "The Pro variant is built differently." before a claim about V4.1-Flash
            named = identity.named_in(text) if step == 0 \
                else identity.models_in(text)
            if not named and (bare := identity.bare_versions_of(own, text)):
                if identity.bare_fits(marks, editions, bare):
                    return True  # names the claim's own version alone: "V4-Flash’s backbone is ..." after V4.1
                if k < len(self._headings) and self._headings[k]:
                    return False  # a heading naming another version alone: "V4-Flash, the previous generation"
            if not named:
                continue
            if identity.derived_from(own, text):
                return False  # "Then there is the student, a 3B model distilled from Qwen2.5-14B-Instruct-1M."
            if own & named and identity.fits(marks, text, editions):  # its family, not another
                return True                                           # model of it ("Qwen3-8B", "qwen25-14b")
            if step == 0 or not any(w.result.group == group for w in accepted[k]):
                return False
            passing = True
        return not passing

    def _between(self, sentences: tuple[str, ...], accepted: list[list[match.ClaimView]], i: int, j: int,
                 anchor: match.ClaimView) -> bool:
        """Whether a sentence between the one at ``i`` (naming nothing) and its anchor at ``j`` names a
        family of models that the anchor does not (``identity.models_in``: no maker, hardware, comparison
        or aside: "An NVIDIA H100 SXM has 80 GB."), while the anchor names a model of its own, and is no
        sentence of the anchor's group: "... Meta's Llama 3 70B is another model. The weights are 29.5 GB."
        is no longer about the Qwen of two sentences before. An anchor that names
        nothing ("This number leaves out ...") says nothing of whose the sentences around it are: the
        rule stands as it was."""
        shapes = [self.shape(sentences[j])] + ([anchor.shape] if anchor.shape is not None else [])
        if not any(identity.names(s) for s in shapes):
            return False
        own = identity.kin(identity.families_in(sentences[j]) | identity.families_in(anchor.result.said or ""))
        for k in range(min(i, j) + 1, max(i, j)):
            if identity.models_in(sentences[k]) - own \
                    and not any(v.result.group == anchor.result.group for v in accepted[k]):
                return True
        return False

    def claims_of(self, figure: Figure, at: int | None) -> list[match.ClaimView]:
        """The claims whose figure stands where ``figure`` stands, in the sentence at index ``at``."""
        if at is None:
            return []
        place = self._places(figure.sentence).get(figure.offset)
        if place is None:
            return []
        out = []
        for view in self.accepted[at]:
            shift = self._shift(figure.sentence, view)
            if view.place is not None and view.shape is not None and shift is not None \
                    and 0 <= place + shift < len(view.shape.tokens) \
                    and place + shift == view.place:
                out.append(view)
        return out

    def _places(self, sentence: str) -> dict[int, int]:
        """Offset of each figure in ``sentence`` -> its place in the sentence's shape (once per sentence)."""
        found = self._offsets.get(sentence)
        if found is None:
            spans = self._spans.get(sentence, [])
            found = self._offsets[sentence] = dict(zip((s[0] for s in spans), self.shape(sentence).places))
        return found

    def _shift(self, sentence: str, view: match.ClaimView) -> int | None:
        """What to add to a place of ``sentence`` to find it in ``view``'s said (once per pair)."""
        if view.shape is None:
            return None
        key = (sentence, id(view))
        if key not in self._shifts:
            self._shifts[key] = identity.shift(self.shape(sentence), view.shape)
        return self._shifts[key]

    def relations_of(self, at: int | None) -> list[match.ClaimView]:
        """Claims with a ``check`` (no figure) whose sentence is the one at index ``at``."""
        return [] if at is None else [v for v in self.accepted[at] if v.result.check and not v.result.figure]


def _spans(found: Found) -> dict[str, list[tuple[int, int]]]:
    """Each sentence's figures as (start, end) offsets, in order."""
    spans: dict[str, dict[int, tuple[int, int]]] = defaultdict(dict)
    for figure in found.figures:
        if figure.offset >= 0:
            spans[figure.sentence][figure.offset] = (figure.offset, figure.offset + len(figure.text))
    return {s: [spans[s][k] for k in sorted(spans[s])] for s in spans}


def sentence_shapes(found: Found):
    """A function giving a sentence's shape as ``Identities`` reads it (its figures masked)."""
    spans = _spans(found)
    return lambda sentence: identity.shape(sentence, spans.get(sentence, []))


def _indexer(sentences: tuple[str, ...]):
    """A function giving, for figures in draft order, the index of their sentence: the next place
    of that text at or after the last one given, and after it where the figure stands no further into
    the sentence than the last figure did (a repeated sentence is told apart by order: "The weights
    take 27.5 GiB." after Qwen2.5-14B and again after Qwen3-8B are two sentences)."""
    places: dict[str, list[int]] = defaultdict(list)
    for i, s in enumerate(sentences):
        places[s].append(i)
    cursor = {s: 0 for s in places}
    last = [-1, -1]  # the last sentence index given, and the offset of its figure

    def index(sentence: str, offset: int) -> int | None:
        spots = places.get(sentence)
        if not spots:
            return None
        k = cursor[sentence]
        while k + 1 < len(spots) and (spots[k] < last[0] or (spots[k] == last[0] and offset <= last[1])):
            k += 1
        cursor[sentence] = k
        last[:] = [spots[k], offset]
        return spots[k]

    return index


def judge(figure: Figure, claims: list[match.ClaimView], how_tied: str) -> match.Match | None:
    """The verdict for a figure whose claim is one of ``claims`` (identity already shown)."""
    agreeing, other = None, None
    counted = how_tied == "marker" and figure.kind == "count" and not figure.unit and match.counts_a_thing(figure)
    for view in claims:
        if view.result.check and not view.result.figure:
            continue
        if counted and (view.printed or view.recomputed or (0, ""))[1]:
            continue  # "80 layers<!-- claim: ... -->" tied to a claim of 80 GB: a count of layers
        how, shown = match.compare(figure, view)
        if how is not None and agreeing is None:
            agreeing = (view, how, shown)
        elif how is None and other is None and match.compatible(figure, view):
            other = (view, shown)
    if agreeing is not None:
        return verdict(figure, *agreeing, how_tied)
    if other is not None:
        view, shown = other
        result = view.result
        recomputed = f", recomputed {shown}" if shown else ""
        bound = {1: "a lower bound, ", -1: "an upper bound, "}.get(view.bound, "")  # "at least 320GB"
        return match.Match(status="drift", claim=result, printed=result.figure, recomputed=shown,
                           reason=f"the draft prints {figure.shown}; the ledger has {bound}"
                                  f"{result.figure}{recomputed}")
    if claims:
        result = claims[0].result
        return match.Match(status="unbacked", claim=None,
                           reason=f"its claim by {how_tied}, {result.id}, states {result.figure or result.check}: "
                                  "not a figure of this kind")
    return None


def verdict(figure: Figure, view: match.ClaimView, how: str, shown: str | None, how_tied: str) -> match.Match:
    """What a figure that agrees with its own claim (as ``how`` says) is, given the claim's status."""
    result = view.result

    def made(*, status: str, reason: str) -> match.Match:
        return match.Match(status=status, reason=reason, claim=result, printed=result.figure or result.check,
                           recomputed=shown)

    status = result.status
    if how == "reading":
        return made(status="ambiguous", reason=f"{figure.unit} holds under one reading only "
                    f"(the ledger's value is {shown}); say which the draft means")
    if how == "swapped":
        swapped = units.other_reading(figure.unit)
        return made(status="ambiguous", reason=f"it holds only if {figure.unit} is read as {swapped} "
                    f"(the ledger's value is {shown}): {figure.unit} where {swapped} is meant?")
    if status == "unchecked":
        why = match.first_sentence(result.notes or "") or "nothing recomputes it yet"
        return made(status="unchecked", reason=f"its claim is unchecked: {why}")
    bounded = bool(match.BOUNDS.get(figure.qualifier or "") or view.bound)  # a bound is held to the value itself
    if how == "recomputed" and status in ("verified", "drift", "erratum") and not bounded:
        return made(status="drift", reason=f"the draft prints {figure.shown}, which the working gives, but "
                    f"the record still prints {result.figure}: update its figure and said "
                    f"({result.file})")
    read_as = result.comparison.unit if result.comparison else None
    stated = view.printed is not None and view.printed[1] == figure.unit != read_as  # its record's reading:
    if status == "verified" and stated and read_as and units.other_reading(figure.unit) == read_as:
        # the record states "reading: GiB" for its "27.5 GB": verify holds it so, with a note; the draft's
        # reader is told too ("holds only under another reading of its unit" is ambiguous)
        return made(status="ambiguous", reason=f"the ledger reads this {figure.unit} as {read_as} (its record's "
                    f"reading: {read_as}): {figure.unit} where {read_as} is meant?")
    if status == "verified":
        return made(status="backed", reason=f"its claim ({how_tied}) agrees")
    if status == "erratum":
        reason = (result.erratum or {}).get("reason", result.reason)
        return made(status="erratum", reason=f"wrong as printed (an erratum is recorded): {reason}")
    if status == "drift":
        return made(status="drift", reason=f"the claim drifted: {result.reason}")
    return made(status="unbacked", reason=f"its claim {result.id} is invalid: {result.reason}")


def relation_verdict(figure: Figure, view: match.ClaimView, values: frozenset) -> match.Match | None:
    """A relation ("more than 90%": ``mla_reduction > 90 * percent``) on the figure's own sentence
    backs the figure whose number it names; one naming no number of the sentence backs a figure
    nothing else claims, if it holds. A failing one is reported on its own (check._relations)."""
    result = view.result
    said = " ".join((result.said or "").lower().split())
    # The figure as printed must be the one the relation's sentence prints: "Sixty to eighty
    # percent" is not backed by a relation written on "Sixty to seventy percent".
    if " ".join(figure.text.lower().split()) not in said:
        return None
    named = {n for n in match.numbers_in(result.check)} & set(values)
    if named and figure.value not in named:
        return None
    if result.status == "verified":
        return match.Match(status="backed", reason="its sentence's relation holds", claim=result,
                           printed=result.check)
    if result.status == "unchecked":
        return match.Match(status="unchecked", reason="its sentence's relation is unchecked", claim=result,
                           printed=result.check)
    return None


def hint(same: tuple[str, ...]) -> str:
    """The reason of an unbacked figure: which claims hold its value elsewhere, and how to tie one."""
    if not same:
        return "no claim in the ledger is about this figure"
    names = ", ".join(same[:3]) + (f" and {len(same) - 3} more" if len(same) > 3 else "")
    return (f"no claim is about this figure; {names} hold{'s' if len(same) == 1 else ''} the same value in "
            f"another sentence. If it is that claim, tie it: <!-- claim: {same[0]} --> right after the figure")
