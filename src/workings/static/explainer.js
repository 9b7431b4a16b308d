// The explainer: weights + cache against a machine's memory, from the ledger's own figures.
// Every number comes from the JSON the page carries (the Report, exported at render time); the
// arithmetic is exact (BigInt fractions), the same as workings.explainer in Python:
//   cache = chats x (tokens x per-token bytes / format ratio + parts that do not grow)
//   tokens that fit = floor((memory - weights - chats x fixed) / (chats x per-token bytes / ratio))
// No request leaves the page; all text is set with textContent, never parsed as HTML.
(function () {
  "use strict";
  var dataNode = document.getElementById("explainer-data");
  var form = document.getElementById("explainer");
  if (!dataNode || !form || typeof BigInt !== "function") { return; }
  var data = JSON.parse(dataNode.textContent);
  var $ = function (id) { return document.getElementById(id); };
  var ui = {
    model: $("x-model"), machine: $("x-machine"), format: $("x-format"), chats: $("x-chats"),
    slider: $("x-length"), tokens: $("x-tokens"), bar: $("x-bar"), summary: $("x-summary")
  };
  var SLIDER = 1000, MIN_LENGTH = 1000, NO_WINDOW = 1048576, MAX_CHATS = 4096;

  // ---- exact fractions ---------------------------------------------------------------------
  function gcd(a, b) { a = a < 0n ? -a : a; b = b < 0n ? -b : b; while (b) { var t = a % b; a = b; b = t; } return a; }
  function R(n, d) {
    n = BigInt(n); d = d === undefined ? 1n : BigInt(d);
    if (d < 0n) { n = -n; d = -d; }
    var g = gcd(n, d) || 1n;
    return { n: n / g, d: d / g };
  }
  function add(a, b) { return R(a.n * b.d + b.n * a.d, a.d * b.d); }
  function sub(a, b) { return R(a.n * b.d - b.n * a.d, a.d * b.d); }
  function mul(a, b) { return R(a.n * b.n, a.d * b.d); }
  function div(a, b) { return R(a.n * b.d, a.d * b.n); }
  function cmp(a, b) { var x = a.n * b.d, y = b.n * a.d; return x < y ? -1 : x > y ? 1 : 0; }
  function floor(a) { var q = a.n / a.d; return (a.n % a.d !== 0n && a.n < 0n) ? q - 1n : q; }
  function toFloat(a) { return Number(a.n * 1000000n / a.d) / 1e6; }
  function valueOf(fig) { return fig && fig.n !== null && fig.n !== undefined ? R(fig.n, fig.d) : null; }

  // ---- formatting (deterministic: no locale) ------------------------------------------------
  function group(big) {
    var s = (big < 0n ? -big : big).toString(), out = "";
    while (s.length > 3) { out = "," + s.slice(-3) + out; s = s.slice(0, -3); }
    return (big < 0n ? "-" : "") + s + out;
  }
  function exact(a) { return a.d === 1n ? a.n.toString() : a.n.toString() + "/" + a.d.toString(); }
  function decimal(a, places) {  // rounded half away from zero
    var scale = 10n ** BigInt(places), neg = a.n < 0n, n = neg ? -a.n : a.n;
    var q = (2n * n * scale + a.d) / (2n * a.d), whole = q / scale, frac = (q % scale).toString();
    while (frac.length < places) { frac = "0" + frac; }
    return (neg && q ? "-" : "") + group(whole) + (places ? "." + frac : "");
  }
  function number(a) { return a.d === 1n ? group(a.n) : decimal(a, 2); }
  var PREFIXES = [[1000000000000n, "TB"], [1000000000n, "GB"], [1000000n, "MB"], [1000n, "kB"]];
  function bytes(a) {
    var abs = a.n < 0n ? R(-a.n, a.d) : a;
    for (var i = 0; i < PREFIXES.length; i++) {
      if (cmp(abs, R(PREFIXES[i][0])) >= 0) { return decimal(div(a, R(PREFIXES[i][0])), 1) + " " + PREFIXES[i][1]; }
    }
    return number(a) + " B";
  }
  function plural(n, word) { return group(n) + " " + word + (n === 1n ? "" : "s"); }

  // ---- links to the claims ------------------------------------------------------------------
  function text(s) { return document.createTextNode(s); }
  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } return node; }
  function figLink(fig, missing) {
    var span = document.createElement("span");
    if (!fig || !fig.claim) {
      span.className = "missing-fig"; span.setAttribute("data-status", "missing");
      span.textContent = missing + " not in the ledger";
      return span;
    }
    var a = document.createElement("a");
    a.href = fig.href; a.className = "fig";
    a.setAttribute("data-claim", fig.claim); a.setAttribute("data-status", fig.status);
    a.textContent = fig.display || "no value";
    span.appendChild(a);
    if (fig.step) { span.appendChild(text(" (step " + fig.step + ")")); }
    var status = document.createElement("span");
    status.className = "status status-" + fig.status;
    status.textContent = fig.symbol + " " + fig.status;
    span.appendChild(text(" ")); span.appendChild(status);
    if (fig.label === "estimate" || fig.label === "vendor" || fig.label === "bound") { span.appendChild(text(" (" + fig.label + ")")); }
    if (fig.printed_only) { span.appendChild(text(" as printed, nothing recomputes it")); }
    return span;
  }
  function put(id, parts) {
    var node = clear($(id));
    parts.forEach(function (p) { node.appendChild(typeof p === "string" ? text(p) : p); });
  }
  function output(id, value, shown) {
    var node = $(id);
    node.textContent = shown;
    node.setAttribute("data-exact", value === null ? "" : exact(value));
  }

  // ---- the choices ----------------------------------------------------------------------------
  function byId(list, id) { for (var i = 0; i < list.length; i++) { if (list[i].id === id) { return list[i]; } } return null; }
  function fill(select, list, usable, label) {
    list.forEach(function (item) {
      var option = document.createElement("option");
      option.value = item.id;
      option.textContent = label(item);
      option.disabled = !usable(item);
      select.appendChild(option);
    });
  }
  fill(ui.model, data.models, function (m) { return valueOf(m.per_token) !== null; }, function (m) {
    return m.name + (valueOf(m.per_token) === null ? " (no figure: " + m.per_token.status + ")" : "");
  });
  fill(ui.machine, data.machines, function (m) { return valueOf(m.memory) !== null; }, function (m) {
    return m.name + (m.memory.display ? ": " + m.memory.display : " (no figure)") +
      (m.memory.status !== "verified" ? " (" + m.memory.status + ")" : "");
  });
  fill(ui.format, data.formats, function (f) { return !f.smaller_by || valueOf(f.smaller_by) !== null; },
    function (f) { return f.name; });

  function windowOf(model) { var w = valueOf(model.window); return w === null ? BigInt(NO_WINDOW) : floor(w); }
  function minLength(model) { var w = windowOf(model); return w < BigInt(MIN_LENGTH) ? w : BigInt(MIN_LENGTH); }
  function toSlider(model, length) {
    var lo = Number(minLength(model)), hi = Number(windowOf(model));
    if (hi <= lo) { return 0; }
    var p = Math.round(SLIDER * Math.log(Number(length) / lo) / Math.log(hi / lo));
    return Math.max(0, Math.min(SLIDER, p));
  }
  function fromSlider(model, position) {
    var lo = Number(minLength(model)), hi = Number(windowOf(model));
    if (position >= SLIDER) { return windowOf(model); }
    if (position <= 0) { return minLength(model); }
    return BigInt(Math.round(lo * Math.pow(hi / lo, position / SLIDER)));
  }
  function clampLength(model, length) {
    var w = windowOf(model);
    if (length > w) { return w; }
    return length < 1n ? 1n : length;
  }
  function wholeNumber(s) { return /^[0-9]{1,15}$/.test(String(s).trim()) ? BigInt(String(s).trim()) : null; }

  var state = {};
  function readHash() {
    var params = new URLSearchParams(location.hash.replace(/^#/, "")), d = data.defaults;
    var pick = function (list, key) {
      var item = byId(list, params.get(key)) || byId(list, d[key]);
      return item ? item.id : list.length ? list[0].id : null;
    };
    state.model = pick(data.models, "model");
    state.machine = pick(data.machines, "machine");
    state.format = pick(data.formats, "format");
    var chats = wholeNumber(params.get("chats") || "");
    state.chats = chats !== null && chats >= 1n && chats <= BigInt(MAX_CHATS) ? chats : BigInt(d.chats || 1);
    var length = wholeNumber(params.get("length") || "");
    state.length = length !== null ? length : BigInt(d.length || MIN_LENGTH);
  }
  function writeHash() {
    var hash = "#model=" + encodeURIComponent(state.model) + "&machine=" + encodeURIComponent(state.machine) +
      "&format=" + encodeURIComponent(state.format) + "&chats=" + state.chats + "&length=" + state.length;
    $("x-share").setAttribute("href", hash);
    if (location.hash !== hash) {
      try { history.replaceState(null, "", hash); } catch (e) { location.replace(hash); }
    }
  }

  // ---- one computation, shown ---------------------------------------------------------------
  function update() {
    var model = byId(data.models, state.model), machine = byId(data.machines, state.machine),
      format = byId(data.formats, state.format);
    if (!model || !machine || !format) { return; }
    state.length = clampLength(model, state.length);
    ui.model.value = model.id; ui.machine.value = machine.id; ui.format.value = format.id;
    ui.chats.value = state.chats.toString();
    ui.tokens.max = windowOf(model).toString();
    ui.tokens.min = "1";
    ui.tokens.value = state.length.toString();
    ui.slider.value = String(toSlider(model, state.length));
    ui.slider.disabled = windowOf(model) <= minLength(model);
    ui.slider.setAttribute("aria-valuetext", group(state.length) + " tokens");

    var asBuilt = model.cache_format === "as-built", applies = !asBuilt && format.smaller_by;
    ui.format.disabled = asBuilt;
    var note = $("x-format-note");
    note.hidden = !asBuilt && !applies;
    note.textContent = asBuilt ? model.name + "'s figure is already in the formats the model was built with, " +
      "so the cache format choice does not apply to it." : applies ? "The size only: a " + format.name +
      " cache needs a model and a runtime built or tuned for it, and may cost quality." : "";

    var chats = R(state.chats), length = R(state.length), perToken = valueOf(model.per_token);
    var ratio = applies ? valueOf(format.smaller_by) : R(1);
    var ptb = div(perToken, ratio);
    var fixed = R(0), fixedParts = [], used = [model.per_token, machine.memory, model.window, model.weights];
    if (applies) { used.push(format.smaller_by); }
    model.fixed.forEach(function (part) {
      used.push(part.bytes);
      var v = valueOf(part.bytes);
      if (v !== null) { fixed = add(fixed, v); }
      fixedParts.push(part);
    });
    var weights = valueOf(model.weights) || R(0), memory = valueOf(machine.memory);
    var cache = mul(chats, add(mul(ptb, length), fixed));
    var total = add(weights, cache), over = cmp(total, memory) > 0;
    var free = sub(sub(memory, weights), mul(chats, fixed));
    var fit = free.n < 0n ? null : floor(div(free, mul(chats, ptb)));

    output("x-per-token", ptb, number(ptb) + " B/token");
    put("x-per-token-from", applies ? ["= ", figLink(model.per_token, "cache per token"), " ÷ ",
      figLink(format.smaller_by, "the ratio"), " (" + format.name + ")"] : ["= ", figLink(model.per_token, "cache per token")]);
    var fixedNode = clear($("x-fixed"));
    if (!fixedParts.length) { fixedNode.appendChild(text("none listed for this model")); }
    fixedParts.forEach(function (part, i) {
      if (i) { fixedNode.appendChild(text("; ")); }
      fixedNode.appendChild(text(part.name + ": "));
      fixedNode.appendChild(figLink(part.bytes, "its size"));
      if (valueOf(part.bytes) === null) { fixedNode.appendChild(text(", so it is counted as 0 here (the cache is larger)")); }
      part.context.forEach(function (c) { fixedNode.appendChild(text(" · ")); fixedNode.appendChild(figLink(c, "")); });
    });
    output("x-cache", cache, bytes(cache));
    $("x-cache").title = group(floor(cache)) + " bytes";
    $("x-cache-how").textContent = "= " + plural(state.chats, "chat") + " × (" + group(state.length) + " tokens × " +
      number(ptb) + " B/token" + (fixedParts.length ? " + " + bytes(fixed) + " that does not grow" : "") + ")";
    output("x-weights", valueOf(model.weights), valueOf(model.weights) ? bytes(weights) : "not counted");
    put("x-weights-from", valueOf(model.weights) ? ["= ", figLink(model.weights, "weights")] :
      [figLink(null, "The weights in bytes"), ": the bar leaves them out, so it shows more room than there is"].concat(
        model.context.length ? [" (the ledger has "].concat(model.context.map(function (c) { return figLink(c, ""); }), [")"]) : []));
    output("x-total", total, bytes(total));
    output("x-memory", memory, bytes(memory));
    put("x-memory-from", ["= ", figLink(machine.memory, "memory")]);
    var windowValue = valueOf(model.window);
    output("x-window", windowValue, windowValue ? group(floor(windowValue)) + " tokens" : "not in the ledger");
    put("x-window-from", windowValue ? ["= ", figLink(model.window, "window")] :
      ["the slider stops at " + group(BigInt(NO_WINDOW)) + " tokens"]);
    if (fit === null) {
      output("x-fit", null, "none: the weights and the parts that do not grow already exceed the memory");
      output("x-red", R(0), "any length");
      $("x-fit-how").textContent = "";
    } else {
      output("x-fit", R(fit), plural(fit, "token") + (state.chats > 1n ? " in each chat" : ""));
      output("x-red", R(fit), group(fit) + " tokens" + (fit >= windowOf(model) ? " (beyond the model's window: the whole window fits)" : ""));
      $("x-fit-how").textContent = "= (memory − weights" + (fixedParts.length ? " − chats × what does not grow" : "") +
        ") ÷ (" + (state.chats > 1n ? "chats × " : "") + "cache per token), rounded down";
    }

    // the bar: weights and cache against the memory line; red, and said in words, past it
    var scale = cmp(total, memory) > 0 ? total : memory;
    $("x-bar-weights").style.width = (100 * toFloat(div(weights, scale))).toFixed(3) + "%";
    $("x-bar-cache").style.width = (100 * toFloat(div(cache, scale))).toFixed(3) + "%";
    $("x-bar-memory").style.left = (100 * toFloat(div(memory, scale))).toFixed(3) + "%";
    ui.bar.classList.toggle("over", over);
    form.classList.toggle("over", over);
    var verdict = over ? "Does not fit: " + bytes(sub(total, memory)) + " over." : "Fits, with " + bytes(sub(memory, total)) + " to spare.";
    var sentence = plural(state.chats, "chat") + " of " + group(state.length) + " tokens with " + model.name + " on " +
      machine.name + ": weights " + (valueOf(model.weights) ? bytes(weights) : "(not in the ledger)") + " + cache " +
      bytes(cache) + " = " + bytes(total) + " of " + bytes(memory) + ". " + verdict +
      (fit === null ? "" : " Tokens that still fit: " + group(fit) + (state.chats > 1n ? " per chat" : "") +
        (valueOf(model.weights) ? "" : " (the weights not counted)") +
        (fit >= windowOf(model) ? ", beyond the model's window" : "") + ".") +
      " Upper bound: ignores working memory and the runtime. Real limits are lower.";
    ui.summary.textContent = sentence;
    ui.bar.setAttribute("aria-label", verdict);
    ui.bar.setAttribute("data-over", over ? "true" : "false");

    // how sure: the least certain grade among the inputs, and what is unchecked or missing
    var grades = data.grades, worst = -1, worstNames = [], unchecked = [], missing = [];
    var names = ["cache per token", "memory", "window", "weights"];
    used.forEach(function (fig, i) {
      var name = i < names.length ? names[i] : (applies && i === names.length ? "format ratio" : "a part that does not grow");
      if (!fig || !fig.claim) { missing.push(name); return; }
      if (fig.status === "unchecked") { unchecked.push(name); }
      var g = grades.indexOf(fig.grade);
      if (g > worst) { worst = g; worstNames = []; }
      if (g === worst && g >= 0) { worstNames.push(name); }
    });
    $("x-weakest").textContent = "Least certain input: " + (worst < 0 ? "no graded source" :
      grades[worst] + " (" + worstNames.join(", ") + ")") +
      (unchecked.length ? "; unchecked: " + unchecked.join(", ") : "") +
      (missing.length ? "; not in the ledger: " + missing.join(", ") : "") + ".";
    $("x-attention").textContent = model.name + ": " + model.attention_note + ".";
    var leaves = $("x-leaves-out");
    leaves.hidden = !model.leaves_out;
    leaves.textContent = model.leaves_out || "";
    document.querySelectorAll("tr[data-model]").forEach(function (row) {
      row.classList.toggle("chosen", row.getAttribute("data-model") === model.id);
    });
    writeHash();
  }

  // ---- events ----------------------------------------------------------------------------------
  ui.model.addEventListener("change", function () { state.model = ui.model.value; update(); });
  ui.machine.addEventListener("change", function () { state.machine = ui.machine.value; update(); });
  ui.format.addEventListener("change", function () { state.format = ui.format.value; update(); });
  ui.chats.addEventListener("change", function () {
    var n = wholeNumber(ui.chats.value);
    state.chats = n === null || n < 1n ? 1n : n > BigInt(MAX_CHATS) ? BigInt(MAX_CHATS) : n;
    update();
  });
  ui.slider.addEventListener("input", function () {
    state.length = fromSlider(byId(data.models, state.model), Number(ui.slider.value));
    update();
  });
  ui.tokens.addEventListener("change", function () {
    var n = wholeNumber(ui.tokens.value);
    if (n !== null) { state.length = n; }
    update();
  });
  window.addEventListener("hashchange", function () { readHash(); update(); });
  form.addEventListener("submit", function (event) { event.preventDefault(); });

  // ---- your config, not in the ledger -----------------------------------------------------------
  var yours = $("yours"), config = $("x-config"), configOut = $("x-config-out");
  var DTYPE_BYTES = { bfloat16: 2, float16: 2, float32: 4 };
  function positive(v) { return typeof v === "number" && Number.isSafeInteger(v) && v > 0; }
  function readConfig(raw) {
    var cfg;
    try { cfg = JSON.parse(raw); } catch (e) { return { error: "This is not JSON: " + e.message }; }
    if (!cfg || typeof cfg !== "object" || Array.isArray(cfg)) { return { error: "Expected a JSON object, as config.json is." }; }
    if (cfg.text_config && typeof cfg.text_config === "object") { cfg = cfg.text_config; }
    if ("kv_lora_rank" in cfg) { return { error: "This config has kv_lora_rank: multi-head latent attention, not the standard formula." }; }
    if (Array.isArray(cfg.layer_types) && cfg.layer_types.some(function (t) { return t !== "full_attention"; })) {
      return { error: "This config mixes layer types (" + cfg.layer_types.filter(function (t, i, a) { return a.indexOf(t) === i; }).join(", ") +
        "): hybrid layers, not the standard formula." };
    }
    if (cfg.use_sliding_window === true) { return { error: "This config uses a sliding window: its cache stops growing, not the standard formula." }; }
    var layers = cfg.num_hidden_layers, heads = cfg.num_attention_heads;
    if (!positive(layers)) { return { error: "num_hidden_layers is missing or not a positive whole number." }; }
    if (!positive(heads)) { return { error: "num_attention_heads is missing or not a positive whole number." }; }
    var kv = cfg.num_key_value_heads, steps = [];
    if (kv === undefined || kv === null) { kv = heads; steps.push("no num_key_value_heads: one KV head per query head (multi-head attention)"); }
    if (!positive(kv)) { return { error: "num_key_value_heads is not a positive whole number." }; }
    var head = cfg.head_dim;
    if (head === undefined || head === null) {
      if (!positive(cfg.hidden_size) || cfg.hidden_size % heads !== 0) { return { error: "No head_dim, and hidden_size is not a whole multiple of num_attention_heads." }; }
      head = cfg.hidden_size / heads;
      steps.push("head size = hidden_size ÷ num_attention_heads = " + group(BigInt(cfg.hidden_size)) + " ÷ " + heads + " = " + head);
    }
    if (!positive(head)) { return { error: "head_dim is not a positive whole number." }; }
    var dtype = cfg.torch_dtype || cfg.dtype, value = DTYPE_BYTES[dtype];
    if (!value) { value = 2; steps.push("dtype " + (typeof dtype === "string" ? JSON.stringify(dtype) : "not given") + ": 2 bytes per value assumed (16-bit)"); }
    else { steps.push("dtype " + dtype + ": " + value + " bytes per value, the format of the weights"); }
    var perToken = 2n * BigInt(layers) * BigInt(kv) * BigInt(head) * BigInt(value);
    return { perToken: perToken, working: "2 × " + layers + " layers × " + kv + " KV heads × " + head + " head size × " +
      value + " bytes = " + group(perToken) + " bytes per token", steps: steps,
      window: positive(cfg.max_position_embeddings) ? cfg.max_position_embeddings : null };
  }
  function showConfig() {
    clear(configOut);
    if (!config.value.trim()) { return; }
    var result = readConfig(config.value), p = document.createElement("p");
    if (result.error) { p.className = "yours-error"; p.textContent = result.error; configOut.appendChild(p); return; }
    var label = document.createElement("p");
    label.className = "yours-label"; label.textContent = "Your config, not in the ledger: nothing here is checked.";
    configOut.appendChild(label);
    p.className = "yours-working"; p.textContent = result.working;
    p.setAttribute("data-exact", result.perToken.toString());
    configOut.appendChild(p);
    result.steps.forEach(function (s) { var q = document.createElement("p"); q.className = "note"; q.textContent = s; configOut.appendChild(q); });
    var at = document.createElement("p");
    at.textContent = "At " + group(state.length) + " tokens: " + bytes(R(result.perToken * state.length)) + " of cache per chat" +
      (result.window ? " (its max_position_embeddings: " + group(BigInt(result.window)) + ")" : "") + ".";
    configOut.appendChild(at);
  }
  config.addEventListener("input", showConfig);

  readHash();
  form.hidden = false;
  yours.hidden = false;
  $("needs-script").hidden = true;
  update();
})();
