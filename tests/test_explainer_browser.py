"""The explainer in a real headless Chromium, opened from file:// with the network refused.

The page's figures (bytes per token, cache at the length shown, tokens that fit, the length past which
the bar turns red) are read from the DOM and held against workings.explainer's exact Python
arithmetic for every model, machine, format and a range of chat counts, at lengths reached by moving
the slider with the keyboard. Needs Chromium and playwright like tests/test_browser.py; the
accessibility check needs axe-playwright-python (axe-core, run inside the page, no network).
"""

from __future__ import annotations

import os
import shutil
from fractions import Fraction
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from test_browser import Watched, _missing, browser  # noqa: F401  (the browser fixture)

from workings import explainer as E
from workings.models import GRADES

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parent.parent
CHATS = (1, 2, 3, 16)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """This repository's ledger, copied, verified and rendered: (site, explainer)."""
    from workings.engine import verify
    from workings.render import render_site

    root = tmp_path_factory.mktemp("repo") / "ledger-root"
    for part in ("claims", "ledger"):
        shutil.copytree(ROOT / part, root / part)
    report = verify(root)
    explainer = E.build(report, root)
    assert explainer.problems == ()
    return render_site(report, root, root.parent / "site", explainer=explainer), explainer


def exact(text: str) -> Fraction:
    return Fraction(text) if text else None


class Page:
    """The explainer page and the Python computation for what it shows."""

    def __init__(self, watched, explainer):
        self.page, self.ex = watched.page, explainer
        self.models = {m.id: m for m in explainer.models}
        self.machines = {m.id: m for m in explainer.machines}
        self.formats = {f.id: f for f in explainer.formats}

    def state(self):
        p = self.page
        return (self.models[p.input_value("#x-model")], self.machines[p.input_value("#x-machine")],
                self.formats[p.input_value("#x-format")], int(p.input_value("#x-chats")),
                int(p.input_value("#x-tokens")))

    def check(self) -> dict:
        """Every figure on the page against Python, at the page's own choices."""
        p = self.page
        model, machine, fmt, chats, length = self.state()
        read = lambda sel: exact(p.get_attribute(sel, "data-exact"))  # noqa: E731
        per_token = E.per_token_bytes(model, fmt)
        cache = E.cache_bytes(model, fmt, length, chats)
        total = E.total_bytes(model, fmt, length, chats)
        fit = E.tokens_that_fit(model, machine, fmt, chats)
        where = (model.id, machine.id, fmt.id, chats, length)
        assert read("#x-per-token") == per_token, where
        assert read("#x-cache") == cache, where
        assert read("#x-total") == total, where
        assert read("#x-memory") == machine.memory.value, where
        assert read("#x-fit") == fit, where
        assert read("#x-red") == (fit if fit is not None else 0), where
        over = total > machine.memory.value
        assert p.get_attribute("#x-bar", "data-over") == ("true" if over else "false"), where
        assert ("over" in p.get_attribute("#x-bar", "class")) == over, where
        assert ("Does not fit" if over else "Fits") in p.inner_text("#x-summary"), where
        assert "Upper bound: ignores working memory and the runtime" in p.inner_text("#x-summary")
        # the state is in the address, so a reader can share it
        hash_state = dict(parse_qsl(urlsplit(p.url).fragment))
        assert hash_state == {"model": model.id, "machine": machine.id, "format": fmt.id, "chats": str(chats),
                              "length": str(length)}, where
        return {"fit": fit, "over": over, "model": model, "machine": machine, "format": fmt, "chats": chats,
                "length": length}

    def set_length(self, tokens: int) -> None:
        self.page.fill("#x-tokens", str(tokens))
        self.page.dispatch_event("#x-tokens", "change")


@pytest.fixture
def explainer_page(browser, built):
    site, explainer = built
    requested: list[str] = []
    watched = Watched(browser, viewport={"width": 1100, "height": 900})
    watched.page.on("request", lambda r: requested.append(r.url))
    watched.page.goto((site / "explainer.html").as_uri())
    yield Page(watched, explainer)
    assert watched.errors == []
    assert watched.refused == []
    names = {u.removeprefix(site.as_uri() + "/").split("#")[0] for u in requested}
    assert names == {"explainer.html", "static/style.css", "static/explainer.js"}, names


def test_the_defaults_agree_with_the_ledgers_about_286000_tokens(explainer_page):
    page = explainer_page.page
    seen = explainer_page.check()
    assert (seen["model"].id, seen["machine"].id, seen["format"].id, seen["chats"]) == ("qwen25-14b-1m", "h100",
                                                                                       "bf16", 1)
    assert page.get_attribute("#x-per-token", "data-exact") == "196608"
    assert page.get_attribute("#x-fit", "data-exact") == "286658"
    assert seen["fit"] // 1000 * 1000 == 286_000  # "about 286,000 tokens", rounded down as a capacity
    assert "286,658 tokens" in page.inner_text("#x-fit")
    # every figure links to its claim; the weakest input grade is said
    links = page.locator("#x-working a[data-claim]")
    claims = {links.nth(i).get_attribute("data-claim") for i in range(links.count())}
    assert {"kv-bytes-per-token/qwen25-14b-bytes-per-token", "kv-bytes-per-token/qwen25-14b-weights-gb",
            "kv-bytes-per-token/h100-memory-counted-gib", "kv-bytes-per-token/qwen25-14b-window"} <= claims
    model, machine = seen["model"], seen["machine"]
    used = {"cache per token": model.per_token, "memory": machine.memory, "window": model.window,
            "weights": model.weights}
    worst = max((f.grade for f in used.values()), key=GRADES.index)
    names = ", ".join(name for name, f in used.items() if f.grade == worst)
    assert page.inner_text("#x-weakest") == f"Least certain input: {worst} ({names})."


def test_the_red_threshold_is_where_python_puts_it_for_every_model_and_machine(explainer_page):
    page = explainer_page.page
    for model in explainer_page.ex.models:
        page.select_option("#x-model", model.id)
        for machine in explainer_page.ex.machines:
            page.select_option("#x-machine", machine.id)
            fit = explainer_page.check()["fit"]
            window = int(model.window.value)
            if fit is None or fit >= window:
                continue  # the whole window fits (or nothing does): no threshold inside the slider's range
            explainer_page.set_length(fit)
            assert explainer_page.check()["over"] is False
            explainer_page.set_length(fit + 1)
            assert explainer_page.check()["over"] is True
            assert page.locator("#x-bar.over").count() == 1
    assert page.locator("#x-summary").get_attribute("aria-live") == "polite"


def test_every_model_machine_format_and_chat_count_at_slider_lengths(explainer_page):
    page = explainer_page.page
    slider = page.locator("#x-length")
    checked = 0
    for model in explainer_page.ex.models:
        page.select_option("#x-model", model.id)
        slider.focus()
        lengths = []
        for key in ("Home", "PageUp", "PageUp", "ArrowRight", "End", "PageDown"):
            page.keyboard.press(key)
            lengths.append(int(page.input_value("#x-tokens")))
            assert page.get_attribute("#x-length", "aria-valuetext") == f"{lengths[-1]:,} tokens"
            explainer_page.check()
            checked += 1
        window = int(model.window.value)
        assert lengths[0] == min(1000, window) and lengths[4] == window  # 1k tokens to the window
        assert lengths[1] < lengths[2] < lengths[3] < lengths[4] and lengths[5] < lengths[4]
        for machine in explainer_page.ex.machines:
            page.select_option("#x-machine", machine.id)
            for fmt in explainer_page.ex.formats:
                if page.is_enabled("#x-format"):
                    page.select_option("#x-format", fmt.id)
                else:
                    assert model.cache_format == "as-built"
                    assert page.is_visible("#x-format-note")
                for chats in CHATS:
                    page.fill("#x-chats", str(chats))
                    page.dispatch_event("#x-chats", "change")
                    explainer_page.check()
                    checked += 1
    assert checked >= len(explainer_page.ex.models) * (6 + len(explainer_page.ex.machines) * len(CHATS))


def test_the_address_restores_what_a_reader_shared(explainer_page, built):
    site, _ = built
    page = explainer_page.page
    page.goto((site / "explainer.html").as_uri() + "#model=qwen3-8b&machine=h200&format=fp4&chats=3&length=30000")
    seen = explainer_page.check()
    assert (seen["model"].id, seen["machine"].id, seen["format"].id, seen["chats"], seen["length"]) == (
        "qwen3-8b", "h200", "fp4", 3, 30000)
    assert page.get_attribute("#x-per-token", "data-exact") == "41472"  # 147,456 / (32/9)
    assert "not in the ledger" in page.inner_text("#x-weights-from")  # Qwen3-8B's weights: missing, said so
    # nonsense in the address falls back to the defaults, never to an error
    page.goto((site / "explainer.html").as_uri() + "#model=%3Cscript%3E&chats=-4&length=abc")
    seen = explainer_page.check()
    assert (seen["model"].id, seen["chats"]) == ("qwen25-14b-1m", 1)


def test_random_shared_addresses_agree_with_python(explainer_page):
    """Seeded random states, reached the way a shared link arrives (the address changes), from one
    token to the window and up to the most chats the page allows."""
    import random

    page, ex = explainer_page.page, explainer_page.ex
    rng = random.Random(12)
    for _ in range(60):
        model = rng.choice(ex.models)
        window = int(model.window.value)
        state = {"model": model.id, "machine": rng.choice(ex.machines).id, "format": rng.choice(ex.formats).id,
                 "chats": rng.choice([1, 2, 5, 64, 4096, rng.randint(1, 4096)]),
                 "length": rng.choice([1, window, window - 1, rng.randint(1, window), int(window ** rng.random())])}
        page.evaluate("hash => { location.hash = hash; }",
                      "#" + "&".join(f"{k}={v}" for k, v in state.items()))
        page.wait_for_function("want => location.hash === want && document.getElementById('x-tokens').value === "
                               "want.split('length=')[1]", arg="#" + "&".join(f"{k}={v}" for k, v in state.items()))
        seen = explainer_page.check()
        assert (seen["model"].id, seen["chats"], seen["length"]) == (model.id, state["chats"], state["length"])


def test_unchecked_and_missing_inputs_are_shown_as_such(explainer_page):
    page = explainer_page.page
    page.select_option("#x-model", "deepseek-v41-flash")
    explainer_page.check()
    assert page.is_disabled("#x-format")
    weakest = page.inner_text("#x-weakest")
    assert "unchecked: window" in weakest and "not in the ledger" in weakest and "weights" in weakest
    assert "a part that does not grow" in weakest
    assert page.locator('#x-window-from [data-status="unchecked"]').count() == 1
    assert "window cache" in page.inner_text("#x-fixed") and "counted as 0" in page.inner_text("#x-fixed")
    assert "not the standard formula" in page.inner_text("#x-attention")


def test_your_config_is_computed_and_labelled_not_in_the_ledger(explainer_page):
    page = explainer_page.page
    # Qwen/Qwen2.5-14B-Instruct-1M's config fields, as the ledger's copies of it give them
    page.fill("#x-config", '{"hidden_size": 5120, "num_attention_heads": 40, "num_hidden_layers": 48, '
                           '"num_key_value_heads": 8, "torch_dtype": "bfloat16", "max_position_embeddings": 1010000}')
    out = page.locator("#x-config-out")
    assert "Your config, not in the ledger" in out.inner_text()
    assert page.get_attribute("#x-config-out .yours-working", "data-exact") == "196608"
    assert "2 × 48 layers × 8 KV heads × 128 head size × 2 bytes = 196,608 bytes per token" in out.inner_text()
    page.fill("#x-config", '{"kv_lora_rank": 512, "num_hidden_layers": 60, "num_attention_heads": 128}')
    assert "not the standard formula" in out.inner_text()
    page.fill("#x-config", '{"num_hidden_layers": 2, "</p><img src=x>": 1')
    assert "not JSON" in out.inner_text() and page.locator("#x-config-out img").count() == 0


def test_the_page_is_axe_clean_and_reads_on_a_phone(browser, built):
    try:
        from axe_playwright_python.sync_playwright import Axe
    except ImportError:
        _missing("axe-playwright-python is not installed (pip install axe-playwright-python)")
    site, _ = built
    shots = []
    for width, height, name, state in ((1200, 1000, "explainer.png", ""),
                                       (390, 844, "explainer-phone.png",
                                        "#model=qwen25-14b-1m&machine=h100&format=bf16&chats=2&length=400000")):
        watched = Watched(browser, viewport={"width": width, "height": height})
        page = watched.page
        page.goto((site / "explainer.html").as_uri() + state)
        results = Axe().run(page, options={"resultTypes": ["violations"], "preload": False})  # no fetch of its own
        assert results.violations_count == 0, results.generate_report()
        scroll = page.evaluate("document.documentElement.scrollWidth")
        assert scroll <= width, f"the explainer scrolls sideways at {width}px ({scroll}px)"
        if state:
            assert page.get_attribute("#x-bar", "data-over") == "true"  # two chats of 400k do not fit: red
        shot = site.parent / name
        page.screenshot(path=str(shot), full_page=True, clip={"x": 0, "y": 0, "width": width, "height": 1500})
        shots.append(shot)
        assert watched.errors == [] and watched.refused == []
    if os.environ.get("WORKINGS_SCREENSHOT_DIR"):
        target = Path(os.environ["WORKINGS_SCREENSHOT_DIR"])
        target.mkdir(parents=True, exist_ok=True)
        for shot in shots:
            shutil.copyfile(shot, target / shot.name)


def test_without_script_no_dead_controls_and_every_figure_listed(browser, built):
    site, explainer = built
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto((site / "explainer.html").as_uri())
    assert page.locator("#explainer").is_hidden() and page.locator("#yours").is_hidden()
    assert page.locator("#needs-script").is_visible()
    rows = page.locator("tr[data-model]")
    assert rows.count() == len(explainer.models)
    for model in explainer.models:
        cell = page.locator(f'tr[data-model="{model.id}"] a[data-claim="{model.per_token.claim}"]')
        assert cell.inner_text() == model.per_token.display
    assert page.locator("li[data-machine]").count() == len(explainer.machines)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    context.close()
