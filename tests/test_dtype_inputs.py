"""`dtype:source#key`: a config's dtype read as bytes per value, instead of a typed `2 B`."""

from __future__ import annotations

import pytest

from tests.conftest import QWEN_CONFIG
from workings.dtypes import BYTES_PER_VALUE

CLAIM = """\
said: "{said}"
figure: {figure}
label: derived
inputs:
  layers: {src}#num_hidden_layers
  kv_heads: {src}#num_key_value_heads
  hidden: {src}#hidden_size
  heads: {src}#num_attention_heads
  value_bytes: {dtype}
compute:
  head_dim: hidden / heads
  per_token: 2 * layers * kv_heads * head_dim * value_bytes / token
"""


def claim(src="qwen", dtype="dtype:qwen#torch_dtype", figure="196,608 B/token",
          said="2 x 48 x 8 x 128 x 2 = 196,608 bytes per token."):
    return CLAIM.format(src=src, dtype=dtype, figure=figure, said=said)


def test_the_dtype_a_json_config_names_is_read_as_bytes(tmp_ledger):
    tmp_ledger.source("qwen")  # QWEN_CONFIG: "torch_dtype": "bfloat16"
    assert b'"torch_dtype": "bfloat16"' in QWEN_CONFIG
    tmp_ledger.claim("kv/per-token", claim())
    report = tmp_ledger.verify()
    result = report.claim("kv/per-token")
    assert result.status == "verified", result.reason
    (item,) = [i for i in result.inputs if i.name == "value_bytes"]
    assert (item.kind, item.source, item.key, item.grade) == ("source", "qwen", "torch_dtype", "copy")
    assert item.result.value == 2 and item.result.unit in ("B", "byte")
    assert item.passage == "torch_dtype: bfloat16"  # what was read, shown beside the 2 B


def test_a_config_excerpt_and_a_wider_dtype(tmp_ledger):
    tmp_ledger.source("opt", raw=b'| "hidden_size": 5120, | |\n"num_attention_heads": 40, | |\n"num_hidden_layers": 48,\n'
                      b'"num_key_value_heads": 8,\n"torch_dtype": "float32", | |\n', fmt="text")
    tmp_ledger.claim("kv/fp32", claim(src="opt", dtype="dtype:opt#torch_dtype", figure="393,216 B/token",
                                             said="2 x 48 x 8 x 128 x 4 = 393,216 bytes per token."))
    assert tmp_ledger.verify().claim("kv/fp32").status == "verified"


@pytest.mark.parametrize("raw, dtype, message", [
    (b'{"torch_dtype": "auto", "num_hidden_layers": 48, "num_key_value_heads": 8, "hidden_size": 5120, '
     b'"num_attention_heads": 40}', "dtype:qwen#torch_dtype", "'auto' (qwen#torch_dtype) is not a dtype workings knows"),
    (QWEN_CONFIG, "dtype:qwen#dtype", "key 'dtype' is not in snapshot"),
    (QWEN_CONFIG, "dtype:qwen#hidden_size", "key 'hidden_size' in snapshot"),
])
def test_unknown_dtypes_and_missing_keys_are_errors_at_the_input(tmp_ledger, raw, dtype, message):
    tmp_ledger.source("qwen", raw=raw)
    path = tmp_ledger.claim("kv/per-token", claim(dtype=dtype))
    result = tmp_ledger.verify().claim("kv/per-token")
    assert result.status == "error"
    (msg,) = [m for m in result.messages if m.kind == "error"]
    assert message in msg.text and msg.line == 9 and msg.key == "inputs.value_bytes", (msg, path)


def test_a_dtype_input_takes_no_unit_and_names_a_source(tmp_ledger):
    tmp_ledger.source("qwen")
    tmp_ledger.claim("kv/per-token", claim(dtype="dtype:qwen#torch_dtype B"))
    problems = tmp_ledger.verify().problems
    assert any("expected dtype:source#key" in p.message and p.key == "inputs.value_bytes" for p in problems)


def test_the_table_has_the_widths_of_the_formats_configs_name():
    assert {n: BYTES_PER_VALUE[n] for n in ("bfloat16", "float16", "float32", "float8_e4m3fn")} == {
        "bfloat16": 2, "float16": 2, "float32": 4, "float8_e4m3fn": 1}
