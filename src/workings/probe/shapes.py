"""Plain descriptions of what a probe builds; no torch here, so they are cheap to validate."""

from __future__ import annotations

from dataclasses import dataclass

from ..probespec import DTYPE_BYTES


@dataclass(frozen=True, kw_only=True)
class KVShape:
    """The shape of one model's KV cache: per layer, one key and one value tensor.

    Each tensor is laid out ``[batch, kv_heads, tokens, head_dim]``, the layout
    ``torch.nn.functional.scaled_dot_product_attention`` reads. ``heads`` is the number of
    query heads (for the decode step; grouped-query attention when it exceeds ``kv_heads``).
    """

    layers: int
    kv_heads: int
    head_dim: int
    dtype: str = "bfloat16"
    heads: int | None = None
    batch: int = 1

    def __post_init__(self) -> None:
        for name in ("layers", "kv_heads", "head_dim", "batch"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if self.dtype not in DTYPE_BYTES:
            raise ValueError(f"dtype must be one of {', '.join(sorted(DTYPE_BYTES))}, got {self.dtype!r}")
        if self.heads is not None:
            if isinstance(self.heads, bool) or not isinstance(self.heads, int) or self.heads < 1:
                raise ValueError(f"heads must be a positive integer, got {self.heads!r}")
            if self.heads % self.kv_heads:
                raise ValueError(f"heads ({self.heads}) must be a multiple of kv_heads ({self.kv_heads})")

    @property
    def value_bytes(self) -> int:
        return DTYPE_BYTES[self.dtype]

    @property
    def query_heads(self) -> int:
        return self.heads if self.heads is not None else self.kv_heads

    def formula_bytes_per_token(self) -> int:
        """2 (key and value) × layers × KV heads × head size × bytes per value, per sequence."""
        return 2 * self.layers * self.kv_heads * self.head_dim * self.value_bytes * self.batch

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "layers": self.layers,
            "kv_heads": self.kv_heads,
            "head_dim": self.head_dim,
            "dtype": self.dtype,
            "batch": self.batch,
        }
        if self.heads is not None:
            data["heads"] = self.heads
        return data
