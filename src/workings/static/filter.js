// Filter the ledger index by status and label. The page is complete without this script:
// the filter form stays hidden unless it runs, and every claim is listed regardless.
(function () {
  "use strict";
  var form = document.getElementById("filter");
  if (!form) { return; }
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr[data-claim]"));
  var sections = Array.prototype.slice.call(document.querySelectorAll("section.group, section.attention, section.corrections"));
  function apply() {
    var status = form.elements.status.value, label = form.elements.label.value, shown = 0, ids = {};
    rows.forEach(function (row) {
      var keep = (!status || row.getAttribute("data-status") === status) &&
                 (!label || row.getAttribute("data-label") === label);
      row.hidden = !keep;
      if (keep) { ids[row.getAttribute("data-claim")] = true; }
    });
    sections.forEach(function (section) {
      section.hidden = !section.querySelector("tr[data-claim]:not([hidden])");
    });
    shown = Object.keys(ids).length;
    form.elements.shown.value = (status || label) ? "showing " + shown + " of " + countAll() + " claims" : "";
  }
  function countAll() {
    var all = {};
    rows.forEach(function (row) { all[row.getAttribute("data-claim")] = true; });
    return Object.keys(all).length;
  }
  form.addEventListener("change", apply);
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  form.hidden = false;
  apply();
})();
