"""Is this figure the claim's figure? Evidence of identity, never agreement in value.

A figure of a draft is a claim's figure in one of two ways:

- **its sentence is the claim's sentence** (``said``): the two read the same once Markdown markup,
  line wrapping, punctuation, case and articles are set aside and every figure (and every bare
  number) is masked, so that a figure the editor changed ("5 times" -> "8 times", "GiB" -> "GB")
  still finds its claim. One may be a part of the other (a sentence split differently), if the part
  holds at least ``MIN_WORDS`` words; a draft's sentence holding the claim's whole sentence is its
  only if what it adds names nothing and turns nothing (``Shape.telling``: "It is simply false that
  ...", "For Mistral-7B, ..." make another statement of it). The figure must stand where the claim's figure stands in
  ``said`` (the n-th masked place), so the three figures of one sentence find their three claims.
- **the editor tied it** with a marker Markdown renderers leave invisible, right after the figure:
  ``128 heads<!-- claim: kv-bytes-per-token/qwen25-14b-head-size -->``. A marker ties the nearest
  figure before it on its line (or the last figure of the line above, when it starts a line).

Every marker is blanked to spaces before the draft is read, so it never becomes a figure and every
column stays true.
"""

from __future__ import annotations

import functools
import re

from ..frozen import frozen
from .finder import spans_in  # noqa: F401 - re-exported: where the finder's figures stand in a sentence
from .text import FOOTNOTE_MARK

MIN_WORDS = 3
LONG = 10       # words that make a sentence its own even when it names nothing
MARKER = re.compile(r"<!--\s*claim:\s*([^\s>]{1,200}?)\s*-->")
_MASK = "\ue000"
# A word: letters and digits, joined by . , - ' ’ / inside ("Qwen2.5-14B", "196,608", "B/token").
_TOKEN = re.compile(r"[^\W_]+(?:[.,\-'’/][^\W_]+)*")
_NUMBERISH = re.compile(r"[\d.,]+")
# Markdown link target: "[text](url)" keeps "text"; no "(" or "]" inside, so "](](](" is read in one pass
_LINK = re.compile(r"\]\([^()\]\s]{0,2000}+\)")
# An HTML tag without attributes ("<h1>", "</p>"): no word of the sentence. One with attributes stays, read as
# words: an "<a href=...>" may name another model.
_TAG = re.compile(r"</?[A-Za-z][\w-]{0,20}+\s*+/?>")
# A cross marking a line false reads as "false" ("❌ That is 192 KiB."); a sentence ending in "?" asks
_CROSSES = str.maketrans({c: " false " for c in "❌✗✘✖⛔🚫"})
_QUESTION = re.compile(r"[?？][\"'”’)\]*_\s]*$")
_FOOTNOTE = re.compile(rf"(?:{FOOTNOTE_MARK}):?")  # a footnote's mark ("[^2]", "<sup>2</sup>", "¹"), or its text's start
_DROP = frozenset({"a", "an", "the"})
_CAPS = re.compile(r"[A-Z][a-z]+[A-Z]\w*|[A-Z]{4,}")   # DeepSeek, NVIDIA


@frozen
class Marker:
    line: int
    column: int       # 1-based column of "<!--"
    claim: str


def strip_markers(text: str) -> tuple[str, list[Marker]]:
    """``text`` with every claim marker replaced by spaces (lines and columns unchanged), and the
    markers found."""
    if "<!--" not in text:
        return text, []
    markers: list[Marker] = []
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def blank(match: re.Match) -> str:
        start = match.start()
        line = _bisect(line_starts, start)
        markers.append(Marker(line=line + 1, column=start - line_starts[line] + 1, claim=match.group(1)))
        return re.sub(r"[^\n]", " ", match.group())

    return MARKER.sub(blank, text), markers


def _bisect(starts: list[int], offset: int) -> int:
    low, high = 0, len(starts) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if starts[middle] <= offset:
            low = middle
        else:
            high = middle - 1
    return low


def tie_markers(markers: list[Marker], figures) -> dict[int, str]:
    """Index of the figure each marker ties -> claim id. A figure tied twice keeps the first."""
    by_line: dict[int, list[int]] = {}
    for index, figure in enumerate(figures):
        by_line.setdefault(figure.line, []).append(index)
    out: dict[int, str] = {}
    for marker in markers:
        before = [i for i in by_line.get(marker.line, ()) if figures[i].column < marker.column]
        if not before and marker.line - 1 in by_line:
            before = by_line[marker.line - 1][-1:]
        if before:
            out.setdefault(before[-1], marker.claim)
    return out


@frozen
class Shape:
    """A sentence as identity sees it: its words, with each figure and bare number one place."""

    tokens: tuple[str, ...]        # "#" for a masked place
    places: tuple[int, ...]        # for each figure (in the order given), its index in ``tokens``
    words: int                     # how many tokens are not a masked figure
    key: str                       # "\x00".join(tokens), for searching
    telling: frozenset[int] = frozenset()  # tokens that name something or turn the sentence: see ``_telling``
    inside: frozenset[int] = frozenset()   # tokens of the words inside a figure (``_things``): what it counts

    def find(self, other: Shape) -> int | None:
        """Offset of ``other`` inside this shape (token index), or None."""
        at = ("\x00" + self.key + "\x00").find("\x00" + other.key + "\x00")
        if at < 0:
            return None
        return self.key.count("\x00", 0, at) if at else 0


# Words inside a figure after its "of", up to a "per": what it counts ("890 bytes of KV cache per token",
# "of weights", "of SSD"), which stay in the sentence's shape. Its number, unit (which the editor may
# change, GiB to GB), qualifier and scale are masked with it.
_OF_WHAT = re.compile(r"\bof\s++((?:[^\W\d_]{1,40}+[\s\"”’'-]*+){1,6}?)(?=\bper\b|$)", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]{1,40}")
_UNIT_WORDS = frozenset({"b", "byte", "bytes", "bit", "bits", "kb", "mb", "gb", "tb", "kib", "mib", "gib", "tib", "token",
                         "tokens", "the", "a", "an", "memory"})


def _things(figure: str) -> str:
    """The words of a figure's text after its "of" (``_OF_WHAT``), lower-cased, as shape reads them."""
    match = _OF_WHAT.search(figure)
    if match is None:
        return ""
    return " ".join(w for w in (m.group().lower() for m in _WORD.finditer(match.group(1))) if w not in _UNIT_WORDS)


# A label before a sentence, as a list or a changelog prints one: "**Added:**", "Correction:", "Why it matters:"
_LABEL = re.compile(r"[\s*_]*+(?:(?:[-+•]|\d{1,3}+[.)])\s++)?+[\s*_]*+([A-Za-z][A-Za-z ]{0,30}?)[*_\s]*+:[*_]*+\s++(?=\S)")


def shape(sentence: str, spans: list[tuple[int, int]]) -> Shape:
    """``sentence`` with the figures at ``spans`` (start, end offsets, in order) masked."""
    pieces, last = [], 0
    things = [_things(sentence[start:end]) for start, end in spans]
    for (start, end), what in zip(spans, things):
        pieces.append(sentence[last:start])
        pieces.append(f" {_MASK} {what} ")
        last = max(last, end)
    pieces.append(sentence[last:])
    text = _TAG.sub(" ", _FOOTNOTE.sub(" ", _LINK.sub("]", "".join(pieces)))).translate(_CROSSES)
    if (label := _LABEL.match(text)) is not None and not any(
            w in _TURNING or w in _FAMILIES for w in label.group(1).lower().split()):
        text = text[label.end():]  # "**Added:** The weights take 27.5 GiB." is the claim's sentence
    tokens: list[str] = []
    places: list[int] = []
    telling: list[int] = []
    inside: list[int] = []
    within = 0  # the words of a figure's "of" still to come after its mask
    end = 0  # where the last word ended: a word after a colon starts a clause ("**Correction:** The weights ...")
    for match in re.finditer(rf"{_MASK}|{_TOKEN.pattern}", text):
        word = match.group()
        clause = ":" in text[end:match.start()]
        end = match.end()
        if word == _MASK:
            places.append(len(tokens))
            tokens.append("#")
            within = len(_TOKEN.findall(things[len(places) - 1]))
            continue
        if within:
            inside.append(len(tokens))
            within -= 1
        if _NUMBERISH.fullmatch(word):
            tokens.append(word.replace(",", ""))  # a number that is no figure (an operand) must match
        elif (lowered := word.lower()) not in _DROP:
            if _telling(word, lowered, first=not tokens or clause) and not (lowered == "per" and _PER_SOURCE.match(text, match.end())):
                telling.append(len(tokens))
            tokens.append(lowered.replace("’", "'"))  # "V4-Flash’s" is "V4-Flash's"
    if _QUESTION.search(text):  # asked, not said: "The cache is about 6.7 times the size of the model?"
        telling.append(len(tokens))
        tokens.append("?")
    return Shape(tokens=tuple(tokens), places=tuple(places), words=sum(1 for t in tokens if t != "#"),
                 key="\x00".join(tokens), telling=frozenset(telling), inside=frozenset(inside))


# Words that turn what a sentence says: a negation, a doubt, a condition, a contrast. Beside a claim's
# whole sentence they make another statement of it ("It is simply false that ...", "not at the full window").
_TURNING = frozenset({
    # another time: a draft, a plan ("Last year, ...", "In the prototype, ...", "Eventually, ...")
    "last", "eventually", "someday", "prototype", "preview", "beta", "alpha", "formerly", "previously",
    "originally", "earliest", "roadmap", "planned", "upcoming", "future", "tomorrow", "soon", "year", "years",
    "month", "months", "decade",  # "Next year, ...", "In a few months, ..."
    # a belief or a report, not the fact ("Many readers wrongly believe that ...", "A viral thread insisted
    # that ...", "Yeah, right: ...", "..., and pigs fly")
    "believe", "believes", "believed", "think", "thinks", "insisted", "insists", "yeah", "pigs", "regret",
    "told", "viral",
    "only",  # "... — but only for the first layer"
    # the same in other languages ("Falsch ist:", "C'est faux :", ", angeblich", "Для другой модели:")
    "falsch", "faux", "fausse", "angeblich", "gerücht", "gerüchte", "rumeur", "prétendument", "неверно",
    "неправда", "ложь", "слух", "слухи", "якобы", "другой", "другая", "другие",
    "falso", "falsa", "falsos", "falsas", "falsi", "false", "incorrecto", "incorrecta", "errado", "errada", "errato",
    "sbagliato", "bulo", "mentira", "bufala", "rumor", "rumores", "voci", "boato",  # "Lo siguiente es falso:"
    "not", "no", "never", "nobody", "none", "nothing", "neither", "nor", "false", "falsely", "untrue", "wrong",
    "wrongly", "incorrect", "incorrectly", "mistaken", "mistakenly", "misconception", "myth", "rumour", "rumor",
    "rumoured", "rumored", "allegedly", "supposedly", "reportedly", "purportedly", "dispute", "disputes",
    "disputed", "unproven", "doubt", "doubts", "doubtful", "perhaps", "maybe", "possibly", "theory", "claim",
    "claims", "claimed", "pretend", "suppose", "supposing", "imagine", "assume", "assuming", "hypothetically",
    "if", "unless", "had", "should", "would", "could", "might", "without", "instead", "rather", "except", "once",
    "until", "till", "used", "old", "older", "former", "formerly", "previously", "earlier", "before",
    "isn't", "aren't", "wasn't", "weren't", "doesn't", "don't", "didn't", "won't", "wouldn't", "can't",
    "cannot", "couldn't", "shouldn't", "hasn't", "haven't",
    # a figure disowned ("according to a debunked post", "a figure we have since retracted")
    "debunked", "erroneously", "erroneous", "bogus", "retracted", "nonsense", "fiction", "fictional", "rumours",
    "rumors", "alleged", "supposed", "purported", "fake", "fabricated", "inaccurate", "outdated", "obsolete",
    "disproven", "refuted", "discredited", "misleading", "unverified", "unconfirmed", "hypothetical", "imaginary",
    "hoax", "mistake", "mistaken", "misinformed", "fantasy", "leaked", "withdrawn", "successor", "predecessor",
    "satire", "satirical", "parody", "joke", "spoof",  # "The following is satire: ..."
    # or another quantity of it ("... per GPU", "on each of two dies", "across all users", "80 GB of memory
    # bandwidth", "free after the weights", "layerwise", "summed over the cluster", "doubled for safety")
    "per", "each", "every", "across", "combined", "bandwidth", "throughput", "free", "remaining", "spare",
    "layerwise", "aggregate", "summed", "altogether", "doubled", "squared", "minus", "left", "unused", "headroom",
    "leftover",
    # or the figure under another format ("... when quantised")
    "quantised", "quantized", "quantisation", "quantization", "compressed"})
# Families of models and their makers: a sentence naming one beside a claim's names another thing
_FAMILIES = frozenset({
    "llama", "qwen", "gpt", "gemma", "mistral", "mixtral", "claude", "gemini", "phi", "kimi", "deepseek", "falcon",
    "glm", "grok", "opt", "palm", "bloom", "yi", "baichuan", "internlm", "olmo", "command", "nemotron", "granite",
    "mamba", "jamba", "vicuna", "alpaca", "cohere", "minimax", "stablelm", "bert", "t5", "whisper",
    "chatgpt", "codellama", "tinyllama", "openllama", "mistralai", "qwq", "chatglm", "dbrx", "mpt", "ernie",
    "hunyuan", "doubao", "starcoder", "wizardlm", "llava", "pixtral", "codestral", "ministral", "smollm", "pythia",
    "databricks", "mosaicml", "facebook", "tencent", "baidu", "bytedance", "zhipu", "xai", "deepmind",
    "sonnet", "opus", "haiku", "zephyr", "hermes", "solar", "exaone", "arctic", "codegemma", "codeqwen", "flan",
    "qianwen", "nvidia", "amd", "intel", "google", "meta", "openai", "anthropic", "alibaba", "microsoft", "moonshot", "apple",
    "blackwell", "hopper", "ampere", "ada", "instinct", "gaudi", "tpu"})
# Hardware and its makers among the families: a sentence naming them names no model (``backing``'s subject)
HARDWARE = frozenset({"nvidia", "amd", "intel", "blackwell", "hopper", "ampere", "ada", "instinct", "gaudi", "tpu",
                      "apple"})
# Capitalised words that name no model, maker or device: a label, a site, a document ("NOTE:", "As the Hugging
# Face config shows"). Any other capitalised word inside a sentence may name one ("For Mamba, ...").
_PLAIN_CAPS = frozenset({
    "note", "notes", "update", "updated", "edit", "edited", "tl;dr", "tldr", "ps", "nb", "i", "hugging", "face",
    "github", "readme", "table", "figure", "fig", "section", "appendix", "chapter", "step", "part", "issue",
    "faq", "q", "a", "ok", "bf16", "fp16", "fp8", "kv", "gpu", "gpus", "cpu", "vram", "hbm", "ram", "ssd", "api"})


# Words of Chinese, Japanese or Korean that turn a sentence, found inside a run of their script (a run is one
# token): wrong, false, a rumour, reportedly, unverified, next year, before, another model ("下面这句是错的：",
# "明年，", "以前は、", "（据说，未经证实）", "사실이 아니다:")
_CJK_TURNING = ("错", "錯", "误", "誤", "假的", "谣", "謠", "传闻", "傳聞", "据说", "據說", "据传", "據傳", "未经", "未經",
                "明年", "来年", "來年", "去年", "以前", "之前", "将来", "將來", "噂", "間違", "嘘", "另一", "其他模型",
                "別の", "아니", "틀린", "틀렸", "잘못", "소문", "내년", "작년", "예전", "다른")


def _telling(word: str, lowered: str, *, first: bool) -> bool:
    """Whether a word of a sentence names something (a name with digits, "Mistral-7B", "FP8"; a family of
    models or its maker, "Llama", "NVIDIA"; any capitalised word inside the sentence but a label's or a
    site's, "NOTE:", "As the Hugging Face config shows") or turns what it says (``_TURNING``: a negation,
    a doubt, a condition, a time before)."""
    if lowered in ("each", "every") and first:  # "Each token keeps ... bytes per token" says it of one token
        return False
    if lowered in _TURNING or lowered.replace("’", "'") in _TURNING or lowered.startswith("per-"):
        return True
    if not word.isascii() and any(mark in word for mark in _CJK_TURNING):
        return True
    if any(c.isdigit() for c in word) and any(c.isalpha() for c in word):
        return True
    bare = re.sub(r"['’]s$", "", lowered)
    if bare in _FAMILIES and word[:1].isupper():  # "the command below" names nothing
        return True
    return not first and word[:1].isupper() and bare not in _PLAIN_CAPS


_LEADING = re.compile(r"[a-z]+")
# "per" before a source or "cent" is no rate: "..., per the config", "12.5 per cent"
_PER_SOURCE = re.compile(r"\s++(?:the|a|an|its|our|their|this|that|your|cent)\b", re.IGNORECASE)


# Families that are also English words ("Run the command below", "Meta-analysis shows", "in the palm"):
# such a word names its family only inside a sentence, or with a number after it ("Falcon 40B"), never
# lower-cased. Any family word lower-cased names nothing ("users can opt out").
_COMMON = frozenset({"command", "opt", "palm", "bloom", "whisper", "phi", "ada", "meta", "granite", "apple",
                     "instinct", "hopper", "ampere", "falcon", "alpaca", "mamba", "olmo", "yi", "sonnet", "opus",
                     "haiku", "zephyr", "hermes", "solar", "arctic", "flan"})
# Who makes which family: a sentence naming the maker names its own models' kin ("Alibaba's guide" beside Qwen)
_MAKERS = {"llama": "meta", "codellama": "meta", "opt": "meta", "qwen": "alibaba", "qwq": "alibaba",
           "gemma": "google", "gemini": "google", "palm": "google", "bert": "google", "phi": "microsoft",
           "gpt": "openai", "chatgpt": "openai", "whisper": "openai", "claude": "anthropic", "kimi": "moonshot",
           "glm": "zhipu", "chatglm": "zhipu", "grok": "xai", "dbrx": "databricks", "mpt": "mosaicml",
           "hunyuan": "tencent", "ernie": "baidu", "doubao": "bytedance", "nemotron": "nvidia",
           "command": "cohere", "mistral": "mistralai", "mixtral": "mistralai", "codestral": "mistralai",
           "ministral": "mistralai", "pixtral": "mistralai", "sonnet": "anthropic", "opus": "anthropic",
           "haiku": "anthropic", "codegemma": "google", "codeqwen": "alibaba", "flan": "google"}


# A model's marks after its family's letters: its version ("2.5" of "Qwen2.5", "3" of "Llama 3", "4.1" of
# "DeepSeek-V4.1", "3" of "Kimi K3"; a bare number only of one or two digits, so "DeepSeek 890 bytes" has
# none) and its size in billions of parameters ("14" of "Qwen2.5-14B"), each read with its dots dropped
_VERSION = re.compile(r"(?:[vk](\d{1,3}(?:\.\d{1,2})?)|(\d{1,2}(?:\.\d{1,2})?))", re.IGNORECASE)
_SIZE = re.compile(r"(\d{1,4}(?:\.\d{1,2})?)b", re.IGNORECASE)
# Families named in Chinese: "百川2-13B" is Baichuan's, "文心一言" (ERNIE Bot) Baidu's ERNIE
_CJK_FAMILIES = {"百川": "baichuan", "文心": "ernie", "通义": "qwen", "通義": "qwen", "千问": "qwen", "千問": "qwen",
                 "混元": "hunyuan", "豆包": "doubao", "智谱": "glm", "智譜": "glm", "深度求索": "deepseek", "月之暗面": "kimi",
                 "书生": "internlm", "书生·浦语": "internlm", "盘古": "pangu", "讯飞星火": "spark"}
# A family's other name: "Tongyi Qianwen 3" is Qwen3
_ALIASES = {"qianwen": "qwen"}
# Words of a model's name between its family and its size: "DeepSeek LLM 7B", "Qwen Chat 7B"
_VARIANTS = frozenset({"llm", "chat", "coder", "instruct", "base", "math", "vl", "moe", "lite"})
# A name written as its family, a hyphen and its size, with no version ("Qwen-14B", "DeepSeek-67B",
# "LLaMA-13B", "Qwen-7B-Chat") is the family's first generation's
_FIRST = re.compile(r"-\d{1,4}(?:\.\d{1,2})?b(?:-[a-z]{1,12})*", re.IGNORECASE)
_PARTS = re.compile(r"[-_/'’,]")
_POSSESSIVE = re.compile(r"['’]s$", re.IGNORECASE)
_HYPHENS = str.maketrans({"\u2010": "-", "\u2011": "-"})  # "Qwen2.5‑7B" with a non-breaking hyphen


def _marks(parts: list[str], within: int = 0) -> tuple[str, str]:
    """(version, size) read from the words after a family's letters, in order, to the first word that is
    neither (a version only before the size): ("2.5", "14b", "instruct") -> ("25", "14"); "" where none.
    The first ``within`` are parts of the name itself, where a word of letters is a variant passed over
    ("Qwen2.5-Coder-7B": 2.5, 7B), as is a variant word after it before a version ("DeepSeek LLM 7B": 7B)."""
    version = size = ""
    for index, part in enumerate(parts):
        if not part:
            continue
        if (m := _SIZE.fullmatch(part)) is not None:
            size = m.group(1).replace(".", "")
            break
        if (index < within and part.isalpha()) or (not version and part.lower() in _VARIANTS):
            continue
        if version or (m := _VERSION.fullmatch(part)) is None:
            break
        version = (m.group(1) or m.group(2)).replace(".", "")
    return version, size


@functools.lru_cache(maxsize=4096)
def mentions_in(text: str) -> frozenset[tuple[str, str, str]]:
    """Each model a sentence names, as (family, version, size) (``_marks``): "Qwen3-8B" ("qwen", "3", "8"),
    "Llama 3 70B" ("llama", "3", "70"), "Qwen" ("qwen", "", ""). A family is named as ``families_in`` says."""
    return frozenset((family, version, size) for family, version, size, _ in editions_in(text))


# The words that tell editions of one version and size apart ("DeepSeek-V4.1-Flash" and "-Pro",
# "Qwen2.5-14B-Instruct" and "-Instruct-1M"), and a context length written into a name ("1M", "128K")
EDITIONS = frozenset({"flash", "pro", "lite", "mini", "nano", "max", "plus", "turbo", "ultra", "base", "instruct",
                      "chat", "coder", "math", "vl", "air", "distill", "omni", "thinking", "reasoning", "it",
                      # a quantised build of it is another artefact ("Qwen2.5-14B-Instruct-1M-AWQ")
                      "awq", "gptq", "gguf", "int4", "int8", "fp8", "exl2", "mlx", "4bit", "8bit", "bnb"})
_CONTEXT_EDITION = re.compile(r"\d{1,4}+[km]")


def _edition(part: str, glued: bool) -> str | None:
    """``part`` as an edition word of a name (``EDITIONS``, ``_CONTEXT_EDITION``), lower-cased; a word after
    the name only capitalised ("DeepSeek V4.1 Pro", not "V4.1 max context")."""
    lowered = part.lower()
    if _CONTEXT_EDITION.fullmatch(lowered):
        return lowered
    if lowered in EDITIONS and (not glued or part[:1].isupper()):
        return lowered
    return None


@functools.lru_cache(maxsize=4096)
def editions_in(text: str) -> frozenset[tuple[str, str, str, frozenset[str]]]:
    """Each model a sentence names, as ``mentions_in`` reads it, with the edition words of its name
    (``EDITIONS``): "DeepSeek-V4.1-Pro" ("deepseek", "41", "", {"pro"})."""
    found: set[tuple[str, str, str, frozenset[str]]] = set()
    text = text.translate(_HYPHENS)
    if not text.isascii():
        found.update((family, "", "", frozenset()) for name, family in _CJK_FAMILIES.items() if name in text)
    tokens = list(_TOKEN.finditer(text))
    words = [m.group() for m in tokens]
    for index, word in enumerate(words):
        lead = _LEADING.match(word.lower())
        if lead is None or (family := lead.group()) not in _FAMILIES:
            continue
        family = _ALIASES.get(family, family)
        if word.lower().endswith((".cpp", "-cpp")):
            continue  # a tool named after a model ("Llama.cpp") names none
        if any(c.isdigit() for c in word) or (word[:1].isupper() and (
                family not in _COMMON or index > 0 or (index + 1 < len(words) and words[index + 1][:1].isdigit()))) \
                or (word.islower() and family not in _COMMON and family not in ("llama", "gpt", "bert")):
            # "the mistral model" names Mistral; "users can opt out" names nothing
            rest = word[lead.end():]
            if "/" in rest and (tail := rest.rsplit("/", 1)[1]).lower().startswith(family):
                rest = tail[len(family):]  # "Qwen/Qwen3-8B": the repository's own name
            rest = _POSSESSIVE.sub("", rest)  # "Qwen's 7B model"
            parts = _PARTS.split(rest)
            within = len(parts)
            for before, after in zip(tokens[index:index + 3], tokens[index + 1:index + 4]):
                if not text[before.end():after.start()].isspace():
                    break  # "Llama 3 70B" is one name; "Qwen: 48 layers" and "| Qwen | 48 |" are not
                parts.extend(_PARTS.split(after.group()))  # "DeepSeek's V4.1-Flash": 4.1
            version, size = _marks(parts, within)
            if not version and size and _FIRST.fullmatch(rest) is not None:
                version = "1"  # "Qwen-14B", the 2023 original, is not Qwen2.5-14B
            editions = frozenset(e for i, part in enumerate(parts) if (e := _edition(part, i >= within)) is not None)
            found.add((family, version, size, editions))
    return frozenset(found)


# An edition named without its family: "The Pro variant is built differently.", "The 128K build is the one most
# people run."
_EDITION_NAMED = re.compile(r"\b([\w-]{2,12}+)\s++(?:variant|version|edition|build|checkpoint|release)s?\b",
                            re.IGNORECASE)


def same_edition_named(editions: frozenset[str], text: str) -> bool:
    """Whether every edition ``text`` names without a family ("the Pro variant", "the 128K build") may be the
    claim's (``editions``, from its ``about``; ``_same_edition``)."""
    for match in _EDITION_NAMED.finditer(text):
        word = _edition(match.group(1), False)
        if word is not None and not _same_edition(editions, frozenset({word})):
            return False
    return True


# Another model made from the one named: "a 3B model distilled from Qwen2.5-14B-Instruct-1M", "a fork of Qwen"
_DERIVED = re.compile(r"\b(?:distill?ed|fine-?tuned|forked|pruned|derived|trained|built)\s++(?:\w++\s++)?(?:from|of|on)\b"
                      r"|\b(?:fine-?tunes?|forks?|derivatives?|students?)\s++of\b", re.IGNORECASE)


def derived_from(own: frozenset[str], text: str) -> bool:
    """Whether ``text`` speaks of a model made from the claim's (its family ``own`` named only after "distilled
    from", "a fork of", ...): the sentence is about that other model ("Then there is the student, a 3B model
    distilled from Qwen2.5-14B-Instruct-1M."), not about the one it names ("Qwen2.5-14B-Instruct-1M is built on
    Qwen2.5-14B" names its own first)."""
    found = _DERIVED.search(text)
    return found is not None and not (families_in(text[:found.start()]) & own) and bool(families_in(text) & own)


# A version of DeepSeek's named without the family, as its own texts do: "V4-Flash’s backbone", "V4.1", "V2"
_BARE_VERSION = re.compile(r"(?<![\w.-])V(\d{1,2}+)(?:\.(\d{1,2}+))?+(?:-([A-Za-z]{2,8}+))?+(?![\w.]|-\d)")
_BARE_FAMILIES = frozenset({"deepseek"})


def bare_versions_of(own: frozenset[str], text: str) -> list[tuple[str, frozenset[str]]]:
    """The versions ``text`` names without a family, for a claim of a family named so (DeepSeek): each as
    (version, edition words): "V4-Flash’s backbone" -> [("4", {"flash"})]."""
    if not own & _BARE_FAMILIES or "V" not in text:
        return []
    out = []
    for match in _BARE_VERSION.finditer(text):
        word = _edition(match.group(3), False) if match.group(3) else None
        out.append((match.group(1) + (match.group(2) or ""), frozenset({word}) if word else frozenset()))
    return out


def bare_fits(marks: tuple[tuple[str, str, str], ...], editions: frozenset[str],
              bare: list[tuple[str, frozenset[str]]]) -> bool:
    """Whether a sentence names the claim's own version without its family: that very version ("V4" is not
    V4.1), of its edition where both say one. Read only to take a sentence as its claim's ("V4-Flash’s
    backbone is ..." after a sentence on V4.1-Flash), never to refuse one: a version named in a comparison
    ("one quarter of V4-Flash's") is no subject."""
    versions = {version for family, version, _ in marks if family in _BARE_FAMILIES and version}
    return bool(versions) and any(v in versions and _same_edition(editions, e) for v, e in bare)


def claim_editions(about: str | None) -> frozenset[str]:
    """The edition words of the model a claim's record names in ``about`` ("Qwen2.5-14B-Instruct-1M":
    {"instruct", "1m"}); none without ``about``."""
    if not about:
        return frozenset()
    return frozenset().union(*(e for f, _, _, e in editions_in(about) if f not in HARDWARE and f not in MAKERS))


def _same_edition(mine: frozenset[str], named: frozenset[str]) -> bool:
    """Whether a model named with the edition words ``named`` may be the claim's edition ``mine``: any where
    either names none; else none that the claim's lacks ("-Pro" is not "-Flash"), and no context length left
    out ("Qwen2.5-14B-Instruct", the standard edition, is not "-Instruct-1M"; "Qwen2.5-14B-1M" may be)."""
    if not mine or not named:
        return True
    return named <= mine and not any(_CONTEXT_EDITION.fullmatch(word) for word in mine - named)


@functools.lru_cache(maxsize=4096)
def families_in(text: str) -> frozenset[str]:
    """The families of models and the makers a sentence names (``_FAMILIES``), each by a word's leading
    letters, as a name is written: "llama" of "Llama-3-8B" and of "Llama's", "qwen" of "Qwen2.5-14B" and
    "qwen2.5"; a word with no digit only capitalised, and one of ``_COMMON`` not as the sentence's first
    word unless a number follows it."""
    return frozenset(family for family, _, _ in mentions_in(text))


# The makers among the families: a sentence naming a maker alone ("You can rent it on Google Cloud",
# "Alibaba's guide") names none of its models
MAKERS = frozenset(_MAKERS.values()) | {"google", "meta", "openai", "anthropic", "alibaba", "microsoft", "moonshot",
                                        "facebook", "tencent", "baidu", "bytedance", "zhipu", "xai", "deepmind",
                                        "databricks", "mosaicml", "cohere"}
# A sentence comparing with another model, or an aside in brackets: no subject of its own ("That is nearly
# eight times the 128K window of Llama 3.1.", "(Llama 3.1 8B, by comparison, needs 128 KiB per token.)")
_ASIDE = re.compile(r"\b(?:than|unlike|compared|comparison|versus|vs|whereas|times)\b|^\s*\(", re.IGNORECASE)


_TURN_TO = re.compile(r"\s*+(?:now\s++)?(?:take|open|consider|look\s++at|see|check|read|pull\s++up)\b", re.IGNORECASE)


def models_in(text: str) -> frozenset[str]:
    """The families of models a sentence names as its subject: ``families_in`` less hardware and makers;
    in a comparison only those named before its word ("Qwen3-8B is 2 times smaller.": Qwen; "That is
    nearly eight times the 128K window of Llama 3.1.": none), or after the comma of one that opens with
    it ("Unlike its big sibling, Qwen2.5-7B-Instruct-1M fits on one card."); none in an aside in brackets."""
    aside = _ASIDE.search(text)
    if aside is not None:
        if aside.group().lstrip().startswith("("):
            return frozenset()
        head = text[:aside.start()]
        if head.strip(" *_").lower() in ("for", "by", "in", "as a"):  # "For comparison, Llama 3.1 8B has 32 layers":
            comma = text.find(",", aside.end())                       # an aside, unless it bids the reader turn to
            rest = text[comma + 1:] if comma >= 0 else ""             # the other model ("For comparison, open
            text = rest if _TURN_TO.match(rest) else ""               # [its config](...)", "..., take Llama 3 70B.")
        elif head.strip():
            text = head
        else:
            comma = text.find(",", aside.end())
            text = text[comma + 1:] if comma >= 0 else ""
    found = (families_in(text) | linked_in(text)) - HARDWARE - MAKERS
    return found | {"another"} if _UNNAMED.search(text) else found


def named_in(text: str) -> frozenset[str]:
    """The families of models a sentence names anywhere in it, in its links' targets too, and "another"
    where it speaks of another model without naming it (``_UNNAMED``); no maker or hardware."""
    found = (families_in(text) | linked_in(text)) - HARDWARE - MAKERS
    return found | {"another"} if _UNNAMED.search(text) else found


# A link's target ("[the other model](https://huggingface.co/meta-llama/Llama-3.1-70B-Instruct)", "[this
# config](https://huggingface.co/codellama/CodeLlama-34b-hf/blob/main/config.json)"): its path, after the
# host, may name a model the link's words do not
_TARGET = re.compile(r"\]\((?:[a-z]{1,10}+://[^/()\s]{1,200}+)?+/?+([^()\s]{1,600}+)\)", re.IGNORECASE)


def linked_in(text: str) -> frozenset[str]:
    """The families named in the paths of a sentence's Markdown links (``_TARGET``)."""
    if "](" not in text:
        return frozenset()
    return frozenset(f for m in _TARGET.finditer(text) for f in families_in(m.group(1).replace("/", " ")))


# A sentence speaking of another model without naming it: "Its successor is a new design.", "Its bigger
# sibling is the one most teams deploy.", "The model that replaced it ...", "Our own fine-tune of its
# predecessor ...", "The community's 4-bit fork ...": what follows is about that one (``models_in``)
_UNNAMED = re.compile(r"\b(?:successors?|predecessors?|siblings?|fine-?tunes?\s++of|forks?|distilled|replaced\s++it"
                      r"|replacement|(?:the|an)\s++other\s++model|another\s++model|a\s++different\s++model"
                      # a model of one's own, or known by a code name ("Our own in-house model, code-named bluebird")
                      r"|in-house|code-?named|codenamed|(?:our|their|my)\s++own\s++(?:[\w-]++\s++)?model)\b",
                      re.IGNORECASE)


def kin(families: frozenset[str]) -> frozenset[str]:
    """``families`` with their makers, and the families of the makers among them."""
    makers = {_MAKERS[f] for f in families if f in _MAKERS}
    return families | makers | {f for f, m in _MAKERS.items() if m in families}


def id_families(claim_id: str) -> frozenset[str]:
    """The families of models a claim's id names, each by a word's leading letters: "qwen" of
    "kv-bytes-per-token/qwen25-14b-weights-gb", "kimi" of ".../kimi-k3-layers"; none of ".../h100-memory"."""
    return frozenset(family for family, _, _ in id_marks(claim_id))


@functools.lru_cache(maxsize=4096)
def id_marks(claim_id: str) -> tuple[tuple[str, str, str], ...]:
    """Each family a claim's id names, with the version and size (``_marks``) it gives: ("qwen", "25", "14")
    of ".../qwen25-14b-weights-gb", ("kimi", "3", "") of ".../kimi-k3-layers", ("deepseek", "", "") of
    ".../deepseek-890-own-number"."""
    words = claim_id.rsplit("/", 1)[-1].lower().split("-")
    found: dict[str, tuple[str, str]] = {}
    for index, word in enumerate(words):
        lead = _LEADING.match(word)
        if lead is not None and lead.group() in _FAMILIES and lead.group() not in found:
            found[lead.group()] = _marks([word[lead.end():]] + words[index + 1:])
    return tuple((family,) + marks for family, marks in found.items())


def _agree(mine: tuple[str, str], named: tuple[str, str], *, exact: bool = False) -> bool:
    """Whether a model named as ``named`` (version, size) could be the one marked ``mine``: sizes equal and
    the version named the start of the claim's ("Llama 3" may be Llama 3.1; "V4.1-Flash" is not V4-Flash),
    or, ``exact``, the claim's version itself ("Qwen 2, the older family"), each where both say it."""
    (version, size), (other_version, other_size) = mine, named
    return (not size or not other_size or size == other_size) and (
        not version or not other_version or version == other_version
        or (not exact and version.startswith(other_version)))


def claim_marks(claim_id: str, sources: tuple[str, ...] = (), about: str | None = None) \
        -> tuple[tuple[str, str, str], ...]:
    """The model a claim is about, as ``id_marks`` reads it from its id; where the id names none, as its record's
    ``about`` names it ("DeepSeek-V4.1-Flash": ("deepseek", "41", "")); where neither does but the id
    starts with a version ("hundred-messages/v41-40-layers", "v4-flash-about-3-5kb"), that version of the
    one family of models (no maker or hardware) its sources name ("deepseek-v41-flash-tech-report":
    ("deepseek", "41", "")); none where they name several, or the id no version (a claim of a generic
    fact, "fp8-halves", may rest on one model's report)."""
    marks = id_marks(claim_id)
    if not marks and about:
        marks = tuple(sorted(m for m in mentions_in(about) if m[0] not in HARDWARE and m[0] not in MAKERS))
    if marks or not sources:
        return marks
    lead = _ID_VERSION.match(claim_id.rsplit("/", 1)[-1].lower())
    if lead is None:
        return ()
    families = {m[0] for source in sources for m in id_marks(source)} - HARDWARE - MAKERS
    return ((families.pop(), lead.group(1), ""),) if len(families) == 1 else ()


_ID_VERSION = re.compile(r"v(\d{1,3})(?:-|$)")


# A device named by its maker's model number: "H100", "A100", "H200", "MI300X", "B200", "L40S", "V100"
_DEVICE = re.compile(r"(?<![\w.-])((?:h|a|b|l|v|t|p|mi|gb|gh)\d{2,4}[a-z]?)(?![\w-])", re.IGNORECASE)


def devices_in(text: str) -> frozenset[str]:
    """The devices a sentence names (``_DEVICE``), lower-cased: "An NVIDIA H100 SXM has 80 GB." -> h100."""
    return frozenset(m.group(1).lower() for m in _DEVICE.finditer(text))


def id_devices(claim_id: str) -> frozenset[str]:
    """The devices a claim's id names: h100 of ".../h100-memory-counted-gib"."""
    return devices_in(claim_id.rsplit("/", 1)[-1].replace("-", " "))


def fits(marks: tuple[tuple[str, str, str], ...], text: str, editions: frozenset[str] = frozenset()) -> bool:
    """Whether the models ``text`` names of the families in ``marks`` (``claim_marks``) may be the claim's
    own: not when each is another model of the family ("Qwen3-8B" for ".../qwen25-14b-weights-gb",
    "Llama 3 70B" for "llama3-8b"), nor another edition of it than ``editions`` (``claim_editions``:
    "DeepSeek-V4.1-Pro" for a claim about "DeepSeek-V4.1-Flash"); a family named without a version or size
    may be any of its models."""
    mentions = editions_in(text)
    exact = _GENERATION.search(text) is not None
    for family, version, size in marks:
        named = [(v, s, e) for f, v, s, e in mentions if f == family]
        if named and not any(_agree((version, size), (v, s), exact=exact) and _same_edition(editions, e)
                             for v, s, e in named):
            return False
    return True


# A family named as another generation of it: "Qwen 2, the older family, ..." is not Qwen2.5
_GENERATION = re.compile(r"\b(?:older|earlier|previous|prior|newer|later|next|last|original)\s++(?:family|generation"
                         r"|series|line|release|version|model)s?\b", re.IGNORECASE)


def names(shape: Shape) -> bool:
    """Whether a sentence names something (``_telling``, a word that turns it aside): "Qwen2.5-14B",
    "Corvid-22B", "NVIDIA"."""
    return any(shape.tokens[i] not in _TURNING and shape.tokens[i].replace("’", "'") not in _TURNING
               for i in shape.telling)


def shift(draft: Shape, said: Shape) -> int | None:
    """What to add to a place of the draft's shape to find it in ``said``, when the two are the
    same sentence (one inside the other); None when they are not. Equal shapes are one sentence
    however short; a part must hold ``MIN_WORDS`` tokens that are not masked figures."""
    if draft.key == said.key:
        return 0 if draft.words else None
    # One inside the other: the longer's other words may add a clause ("... and 9 GB of weights"), but not
    # name another thing or turn what it says ("For Mistral-7B, ...", "It is simply false that ...");
    # and the part left out of the claim's sentence may not be what named its model ("An open model with
    # a window of 1,010,000 tokens." is no part of Qwen's sentence beside "Meet ... Llama 3 8B.").
    outer, inner = (draft, said) if len(draft.tokens) >= len(said.tokens) else (said, draft)
    if inner.words < MIN_WORDS:
        return None
    offset = outer.find(inner)
    added = outer.telling | outer.inside if outer is draft else outer.telling
    if offset is None or any(i < offset or i >= offset + len(inner.tokens) for i in added):
        return None  # nor may the draft say what a figure counts where the claim does not ("of weights")
    if outer is draft and _conditioned(draft.tokens, offset, offset + len(inner.tokens)):
        return None
    return -offset if outer is draft else offset


# A condition the draft adds to a claim's whole sentence: one of these words before a figure, a number or
# a number's word ("... (184.9 GiB) at 4-bit", "with 8 GPUs", "in 2030", "for a million users", "At 4-bit,
# ..."): the claim's figure is not said of that. A clause of its own ("... and 9 GB of weights") is none.
_CONDITION = frozenset({"at", "with", "for", "in", "on", "under", "using", "over", "after", "within", "by", "during"})
_NUMBER_WORDS = frozenset({"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                           "twelve", "twenty", "fifty", "hundred", "thousand", "million", "billion", "trillion",
                           "dozen", "hundreds", "thousands", "millions", "billions", "dozens", "several", "many"})


# The words that suppose another state of things ("What if every query head had its own KV head?")
_SUPPOSING = r"suppose|supposing|imagine|pretend|hypothetically|what\s++if|picture|envision"
# A sentence opening a supposition: what follows it in its paragraph is said of the supposed thing
_SUPPOSE = re.compile(rf"\b(?:{_SUPPOSING}|roadmap|forecasts?"
                      r"|expect(?:s|ed)?\b[^.?!]{0,60}?\bto\s++look\s++like|plans?\s++to|will\s++look\s++like"
                      # or sets another scope for what follows: "every figure below is for one card", "We
                      # ran the AWQ build, quantised to four bits.", "Store everything in BF16 instead."
                      r"|from\s++here\s++(?:on|to|until)|(?:every|each|all)\s++(?:figure|number)s?\s++below"
                      r"|quanti[sz]ed|shard(?:ed)?"
                      # or says it is not meant as fact: "... to the end of this paragraph is satire."
                      r"|satire|satirical|parody|spoof|april\s++fools?['’]?)\b|\binstead[.!]?\W*$"
                      # or labels what follows false ("**Rumour:** ...", "Retracted:")
                      r"|(?:^|[>*_(])\s*+(?:rumou?rs?|myths?|false|fake|outdated|obsolete|superseded|retracted|unconfirmed)"
                      r"[*_\s]{0,4}+(?:</\w{1,10}+>)?+\s*+:",
                      re.IGNORECASE)


# A short sentence after one that takes it back: "Its config.json gives 48 layers ... Not.", "... As if."
_RETORT = re.compile(r"[\s*_]*+(?i:not|as\s++if|right|yeah,?\s++right|sure|not\s++really|or\s++not|(?:just\s++)?kidding|jk|nope"
                     r"|or\s++so\s++we\s++thought|false|scratch\s++that|it\s++is\s++not|it\s++isn't|not\s++any\s*+more"
                     r"|we\s++retract\s++(?:this|that|it))[.!]*+[\s*_]*+")
# A sentence that says the one before it is false: "We got that wrong.", "That was a typo.", "That figure is a myth."
# After a label ("Update:", "Correction (May 3):"), of "that", "this", "it", "the figure above" or "the above quote".
_THAT = (r"(?:that|this|it|these|those|they|the\s++(?:above\s++)?(?:[\w-]++\s++){0,2}?(?:figure|number|line|sentence"
         r"|claim|quote|statement|paragraph|ratio|count|factor|sum|total|estimate)s?"
         r"(?:\s++(?:above|(?:(?:in|of|given\s++in)\s++)?the\s++(?:paragraph|sentence|line|quote|section|table)"
         r"\s++above|(?:(?:in|of|given\s++in)\s++)?the\s++(?:previous|last|preceding)\s++(?:paragraph|sentence|line"
         r"|quote|section|table)))?)")
_UPDATE = r"(?:(?:update|correction|erratum|edit|note)\b[^:\n]{0,40}?:[\W_]*+)?"  # "**Update (Oct 22):** "
_TAKEN_BACK = re.compile(
    rf"[\W_]*+{_UPDATE}(?:we\s++got\s++(?:that|it|this)\s++wrong|{_THAT}(?:\s++(?:figure|number|line|sentence|claim))?"
    r"\s++(?:(?:(?:is|was|are|were|'s|’s)\s++(?:(?:simply|plainly|just)\s++)?+|turned\s++out\s++(?:to\s++be\s++)?+)"
    r"(?:false|wrong|untrue|incorrect|mistaken|not\s++true|no\s++longer\s++true|nonsense|retracted|withdrawn"
    r"|a\s++(?:typo|myth|joke|mistake|rumou?r|hoax))|(?:does\s++not|doesn't|did\s++not|didn't|no\s++longer)\s++holds?)\b"
    r"(?!\s++to\b))",  # "That is wrong to ignore." takes nothing back
    re.IGNORECASE)


# An attribution under a quote: "— a forum post about someone's fine-tune, which we dispute"
_ATTRIBUTION = re.compile(r"[\s*_]*+(?:[—―–]|--)")


def attributes_disowning(sentence: str) -> bool:
    """Whether ``sentence`` is a quote's attribution that disowns it ("— a vendor's slide, which we could not
    reproduce"): what it attributes, the sentences before it in its paragraph, is no claim's."""
    return _ATTRIBUTION.match(sentence) is not None and _DISOWNING.search(sentence) is not None


# A sentence whose subject is what stands above it: "Both figures in the paragraph above ...", "All the
# numbers in the previous paragraph ...", "The figures above ..."
_BACK_SUBJECT = re.compile(
    rf"[\W_]*+{_UPDATE}(?:both|all|each|every|the|these"
    r"|those)\s++(?:[\w-]++\s++){0,3}?(?:figures?|numbers?|values?|claims?|quotes?|sentences?|lines?)\s++(?:above"
    r"|(?:in|of)\s++the\s++(?:(?:paragraph|sentence|section|table|quote)\s++above|(?:previous|last|preceding)"
    r"\s++(?:paragraph|sentence|section|table|quote)))\b", re.IGNORECASE)


def retorts(sentence: str) -> bool:
    """Whether ``sentence`` takes back the one before it: a retort (``_RETORT``: "Not.", "Nope.", "Or so we
    thought.") or a sentence calling it false (``_TAKEN_BACK``: "We got that wrong.", "That was a typo.")."""
    return _RETORT.fullmatch(sentence) is not None or _TAKEN_BACK.match(sentence) is not None or (
        (back := _BACK_SUBJECT.match(sentence)) is not None and _DISOWNING.search(sentence, back.end()) is not None)


# An imperative that changes what is counted: "Now take a single layer on its own.", "Switch the cache to FP8
# and redo the sum.", "Put two H100s in the box.", "Serve thirty-two users at once ..."; it sets the scope of
# what follows when it sets an amount or a format (``_AMOUNT``) and names no model ("Take Qwen3-8B and its
# published configuration." says what the text is about; "Shrink a term." sets nothing)
_LEAD = r"[\W_]*+(?:(?:now|then|so|next|and|first|finally|instead|again|but)\b,?\s++)?"
# verbs that change the model ("prune", "widen") and verbs that only set how it is counted or run ("take", "serve")
_CHANGES = (r"drop|halve|double|quanti[sz]e|shard|split|swap|replace|change|cut|raise|lower|increase|decrease|reduce"
            r"|extend|shrink|remove|offload|compress|stretch|trim|limit|cap|restrict|prune|distil|distill|rebuild"
            r"|retrain|widen|narrow|shorten|lengthen|grow|disable|enable|freeze|merge|fuse|convert")
_SETS = (r"take|switch|serve|put|triple|quadruple|add|move|spread|run|set|turn|keep|store|load|fit|pack|scale|batch"
         r"|bump|give|make")
_IMPERATIVE = re.compile(rf"{_LEAD}(?:{_SETS}|{_CHANGES})\b", re.IGNORECASE)
# or, for a verb that changes the model, names what of it is changed ("Now prune the model hard.", "Widen the
# sliding window.", "Offload the weights to the host.", "Distil it into a small student."): not "a term"
_CHANGING = re.compile(
    rf"{_LEAD}(?:{_CHANGES})\b[^.!?]{{0,60}}?\b(?:the\s++)?(?:model|cache|attention|window|heads?|layers?"
    r"|weights|precision|format|context|batch|users?|gpus?|cards?|experts?|kv|it|them|everything)\b", re.IGNORECASE)
_AMOUNT = re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|sixteen|twenty"
                     r"|thirty|forty|fifty|sixty|hundred|thousand|million|single|half|quarter|third|eighth|twice"
                     r"|fp\d++|int\d++|bf16|fp16|bits?|bytes?|[\w-]++-(?:bit|byte))\b", re.IGNORECASE)


# An imperative that keeps the model as it is: "Keep the cache in BF16, as the model ships."
_AS_SHIPPED = re.compile(r"\bas\s++(?:the\s++model|it)\s++(?:ships|shipped|comes|came|is\s++released|was\s++released)"
                         r"|\bas\s++(?:released|published|shipped)\b|\bby\s++default\b", re.IGNORECASE)


def supposes(sentence: str) -> bool:
    """Whether ``sentence`` opens a supposition (``_SUPPOSE``): "Now suppose Qwen had kept ...", "Or
    imagine a 4-bit build of the same model.", "What if the window were only 131,072 tokens?"; or sets
    another scope by an imperative (``_IMPERATIVE``): "Now take a single layer on its own."."""
    if _SUPPOSE.search(sentence) is not None:
        return True
    return (_IMPERATIVE.match(sentence) is not None and _AMOUNT.search(sentence) is not None
            or _CHANGING.match(sentence) is not None) and not named_in(sentence) and _AS_SHIPPED.search(sentence) is None


# A heading that narrows the section below it to a build before release, a plan, a condition or a disowned
# figure: "### The 6.7x figure was measured on the preview build", "## Myths", "## Under FP8", "## What if
# ...". Not a time before: a history's section ("DeepSeek's Two Earlier Steps") is about the models it names.
_NARROWING = re.compile(
    r"\b(?:(?:the|in|during|on|from)\s++(?:(?:closed|open|public|private|early)\s++)?+(?:preview|beta|alpha|prototype)"
    r"|(?:preview|beta|alpha|prototype)\s++(?:build|release|version|checkpoint|model|weights|edition)"
    r"|planned|upcoming|roadmap|next\s++year|hypothetical"
    r"|speculative|speculation|leaked|leaks|did\s++not\s++survive|didn't\s++survive|unconfirmed|unverified"
    r"|chatter|gossip|hearsay|outdated|obsolete|superseded|withdrawn|retracted|satire|satirical|parody"
    r"|spoof|april\s++fools?['’]?|grapevine|hearsay|allegedly|reportedly|whispers?|supposedly"
    r"|(?:under|with|at|in|using|for)\s++(?:(?:an?|the)\s++)?(?:fp\d++|int\d++|\d++-bit|bf16|fp16|awq|gptq|gguf|quanti[sz]ation|one\s++(?:card|gpu|layer)))\b",
    re.IGNORECASE)


# "## If Qwen had shipped a two-million-token window": a counterfactual, not advice ("## If you run it yourself")
_IF = re.compile(r"[#\s]*+if\b[^?.!]{0,80}?\b(?:had|were|would|could|might)\b", re.IGNORECASE)


# A heading that says what it names still holds: "## The preview numbers hold up", "... confirmed"
_HOLDS = re.compile(r"\b(?:holds?\s++up|held\s++up|still\s++holds?|confirmed|verified|checked|stand|stands|true)\b",
                    re.IGNORECASE)


# A short heading that calls its section false: "## Myths", "## Debunked claims" (a title such as "Five things
# people get wrong about Qwen's cache" heads the corrections too)
_FALSE_SECTION = re.compile(r"\b(?:myths|false|wrong|untrue|incorrect|rumou?rs|rumou?red|debunked|fake|bogus"
                            r"|not\s++true)\b|^[#\s]*+(?:myth|rumou?r)\W*+$", re.IGNORECASE)  # "## The myth of ..." busts one
SHORT_HEADING = 6  # words
# unless it says the section checks them: "## The window myth, checked", "## Myths and facts"
_CHECKED = re.compile(r"\b(?:checked|fact-?check(?:ed)?|busted|debunking|truth|true|facts?|real|actually|correct(?:ed)?"
                      r"|corrections?|errata|reality|realities|vs\.?|versus|got\s++(?:\w++\s++)?wrong)\b", re.IGNORECASE)


_HYPOTHESIS = re.compile(rf"\b(?:{_SUPPOSING})\b", re.IGNORECASE)


def hypothesises(sentence: str) -> bool:
    """Whether ``sentence`` supposes another state of things ("What if every query head had its own KV head?"),
    not another scope or a label: a claim whose own sentence says what would be stays its claim's there."""
    return _HYPOTHESIS.search(sentence) is not None


def narrowing_columns(cells: list[str]) -> frozenset[int]:
    """The columns of a table whose header cell narrows them as a heading does ("Under FP8", "Rumoured",
    "Debunked"): each cell read alone, so "| Rumoured | Confirmed |" narrows the first column and not the
    second, and a cell that says what holds ("Fact", "Confirmed", "Checked") narrows nothing."""
    out = set()
    for column, cell in enumerate(cells):
        text = cell.strip(" *_")
        if text.strip("-: ") and narrows(text) and _CHECKED.search(text) is None and _HOLDS.search(text) is None:
            out.add(column)
    return frozenset(out)


# A caption that says the table or figure above is no measurement: "*Table 3: projected for 2027 ...*"
_CAPTION = re.compile(r"[\s*_]*+(?:table|figure|fig\.?|chart|source|note)\b[^.]{0,200}?\b(?:projected|projection"
                      r"|forecasts?|hypothetical|illustrative|made[\s-]up|fictional|not\s++measured"
                      r"|nothing\s++(?:here|in\s++it)\s++(?:is|was)\s++measured|rumou?red|unverified|unconfirmed)\b",
                      re.IGNORECASE)


def captions_narrowing(sentence: str) -> bool:
    """Whether ``sentence``, just below a table, is a caption saying its figures are not measurements."""
    return _CAPTION.match(sentence) is not None or (sentence.lstrip().startswith(("*", "_")) and narrows(sentence))


def supposes_heading(heading: str) -> bool:
    """Whether a heading narrows its section by a supposition ("## What if ...", "## If Qwen had shipped ...")."""
    return _IF.match(heading) is not None or hypothesises(heading)


def narrows(heading: str) -> bool:
    """Whether a heading sets what its section says apart from the ledger's claims (``_NARROWING``, a
    supposition, or a short heading calling it false): what stands below it, to the next heading of its
    level or above, is no claim's."""
    if _IF.match(heading) is not None or supposes(heading):
        return True
    if _NARROWING.search(heading) is not None:
        return _HOLDS.search(heading) is None  # "## The preview numbers hold up"
    return _FALSE_SECTION.search(heading) is not None and len(heading.lstrip("# ").split()) <= SHORT_HEADING \
        and _CHECKED.search(heading) is None


# A sentence that disowns what comes next: "The next line circulated on social media last week, and it is
# false.", "The following claims are myths:"; the next sentence (one line) or the rest of the passage (several)
_FORWARD = re.compile(r"\b(?:(?:next|following)\s++(?:lines?|sentences?|claims?|figures?|numbers?|statements?"
                      r"|quotes?|paragraphs?|posts?|tweets?|ones?)|what\s++follows|(?:lines?|claims?|figures?"
                      r"|sentences?|statements?|numbers?)\s++(?:below|after\s++this(?:\s++one)?))\b", re.IGNORECASE)
_DISOWNING = re.compile(r"\b(?:false|wrong|untrue|incorrect|myths?|rumou?r(?:s|ed)?|debunked|fake|bogus|nonsense"
                        r"|misleading|mistaken|retracted|inaccurate|not\s++true|isn't\s++true|never\s++true"
                        r"|does\s++not\s++hold|doesn't\s++hold|(?:do\s++not|don't|never)\s++(?:trust|believe|quote|use)"
                        r"|ignore|disregard|scratch|strike|typo|joke|satire|parody|april\s++fools?|never\s++checked"
                        r"|made\s++up|invented|planted|errors?|mistakes?|superseded|withdrawn|since\s++corrected"
                        r"|corrected\s++(?:on|in|since|later)|disputed?|we\s++dispute"
                        r"|(?:does\s++not|doesn't|did\s++not|didn't)\s++(?:survive|hold\s++up|check\s++out)"
                        r"|could(?:\s++not|n't)\s++(?:reproduce|confirm|verify)|none\s++of\s++which)\b",
                        re.IGNORECASE)


def disowns(sentence: str) -> bool:
    """Whether ``sentence`` calls what it speaks of false (``_DISOWNING``, ``_TAKEN_BACK``): a footnote's "This
    figure is wrong.", "It does not survive a recount." disowns its mark's sentence."""
    return _TAKEN_BACK.match(sentence) is not None or _DISOWNING.search(sentence) is not None


# An admonition's title ("[!WARNING] Outdated", ":::danger Retracted"): the text it heads, when it narrows it
_ADMONITION_TITLE = re.compile(r"[>\s*_]{0,6}+(?:\[!\w{2,12}+\]|:::)\s*+(.{0,120})")


def disowns_next(sentence: str) -> int:
    """How much of what follows ``sentence`` it disowns (``_FORWARD`` and ``_DISOWNING``): 1, the next
    sentence ("The next line ... is false."); 2, the rest of its passage ("The following claims are
    myths:"), as does an admonition's title that narrows it ("> [!WARNING] Outdated"); 0, nothing."""
    if (title := _ADMONITION_TITLE.match(sentence)) is not None:
        return 2 if narrows(title.group(1)) or _FALSE_SECTION.search(title.group(1)) else 0
    forward = _FORWARD.search(sentence)
    if forward is None or _DISOWNING.search(sentence) is None:
        return 0
    said = forward.group().lower()
    return 1 if re.search(r"\b(?:line|sentence|claim|figure|number|statement|quote|post|tweet|one)$", said) else 2


def _conditioned(tokens: tuple[str, ...], start: int, end: int) -> bool:
    """Whether the tokens outside ``start:end`` (the claim's sentence) hold a condition word right before
    a masked figure, a bare number or a number's word (``_CONDITION``), or before a variable set to one
    ("for $n = 4$ users", "with k=2 GPUs")."""
    def counted(k: int) -> bool:
        return k < len(tokens) and (tokens[k] == "#" or tokens[k] in _NUMBER_WORDS
                                    or _NUMBERISH.fullmatch(tokens[k]) is not None)
    return any(tokens[i] in _CONDITION and (counted(i + 1) or len(tokens[i + 1]) <= 2 and counted(i + 2))
               for i in (*range(0, min(start, len(tokens) - 1)), *range(end, len(tokens) - 1)))


def same(draft: Shape, said: Shape) -> bool:
    """Whether the two shapes are one sentence (one inside the other)."""
    return shift(draft, said) is not None


def may_be_same(draft: Shape, said: str) -> bool:
    """False only where ``same(draft, shape(said, spans))`` is false whatever figures the finder
    finds in ``said``: a test needing no finder run, so that a draft is held against the few claims
    that could be its sentence's before any claim is read in full. (``could_be(draft)`` is this
    test with ``draft`` fixed, for holding one sentence against many.)

    The same sentence, or the draft's inside ``said``: every word of the draft's (each a token of
    ``said``'s shape) is in ``said``'s text. ``said`` inside the draft's: ``said``'s shape holds
    ``MIN_WORDS`` words, each a word of the draft's; a word of ``said`` that no figure touches is
    such a word as written, and each of ``said``'s figures (no more than the draft has) cuts at
    most two words into pieces that might be, each piece inside the word it was cut from."""
    return could_be(draft)(said)


def could_be(draft: Shape):
    """``may_be_same(draft, said)`` as a function of ``said``, what depends on ``draft`` worked out once."""
    words = tuple(t for t in draft.tokens if t != "#")
    cuts = 2 * (len(draft.tokens) - len(words))  # each of said's figures (no more than the draft's) cuts two

    def test(said: str) -> bool:
        lowered = said.lower()
        if "ς" in lowered:  # final sigma: lower-casing a piece may differ from the whole; no shortcut
            return True
        if "," in lowered:  # a number's token is written without its commas
            flat = lowered.replace(",", "")
            seen = [t for t in words if t in lowered or t in flat]
        else:
            seen = [t for t in words if t in lowered]
        if len(seen) == len(words):
            return True
        if not seen:
            return False  # no word of the draft's in said's text: none is one of its tokens, or in one
        # Only a word of the draft's found in said's text can be one of said's tokens (a token as
        # written, lower-cased, is in ``lowered``; a number's, without its commas, in ``flat``) or
        # inside one: the draft's other words change neither count below.
        present = frozenset(seen)
        tokens, joined = said_tokens(said)
        inside = sum(map(present.__contains__, tokens))
        if inside >= MIN_WORDS or inside + cuts < MIN_WORDS:
            return inside >= MIN_WORDS
        # a piece of a cut word is a word of the draft's inside it. ``joined`` holds each token once,
        # apart: a word found there exactly as often as it is a whole token is inside no other token
        if all(joined.count(k) == tokens.count(k) for k in present):
            return False
        pieces = sum(2 for t in tokens if any(k != t and k in t for k in present))
        return inside + min(cuts, pieces) >= MIN_WORDS

    return test


@functools.lru_cache(maxsize=1 << 15)
def said_tokens(said: str) -> tuple[tuple[str, ...], str]:
    """The tokens ``could_be`` counts in a claim's sentence (lower-cased, articles dropped, a
    number's commas taken out; link targets kept: counting more words only keeps more claims),
    and the same joined by NUL. Worked out once per sentence: a sentence is tested against each
    of a draft's sentences that shares enough words with it, and again for each text a render
    checks."""
    numberish = _NUMBERISH.fullmatch
    tokens = tuple(word.replace(",", "") if word[0].isdecimal() and numberish(word) else low
                   for word in _TOKEN.findall(said) if (low := word.lower()) not in _DROP)
    return tokens, "\x00".join(tokens)




def distinctive(text: str, spans: list[tuple[int, int]]) -> bool:
    """Whether ``text``, outside its figures, names something no other model's sentence would: a
    name with digits (Qwen2.5-14B, H100, config v2), a literal number (an equation's operands), a
    capitalised word inside the sentence (Qwen, DeepSeek, NVIDIA); or ``LONG`` words and more. A
    short sentence that names nothing ("That is 192 KiB.") is its claim's only beside a sentence
    that is (see backing)."""
    pieces, last = [], 0
    for start, end in spans:
        pieces.append(text[last:start])
        pieces.append(" ")
        last = max(last, end)
    pieces.append(text[last:])
    words = _TOKEN.findall(_LINK.sub("]", "".join(pieces)))
    if sum(1 for w in words if w.lower() not in _DROP and not _NUMBERISH.fullmatch(w)) >= LONG:
        return True
    for index, word in enumerate(words):
        if _NUMBERISH.fullmatch(word) and any(c.isdigit() for c in word):
            return True
        if any(c.isdigit() for c in word) and any(c.isalpha() for c in word) or _CAPS.fullmatch(word):
            return True
        if index and word[:1].isupper() and word[1:2].islower():
            return True
    return False
