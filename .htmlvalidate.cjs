// html-validate's configuration for the rendered ledger site (tests/test_html_validate.py runs it on
// every page of `workings render --out DIR`). The recommended rules apply; each rule turned off says why.
module.exports = {
  root: true,
  extends: ["html-validate:recommended"],
  rules: {
    // "<form> element must have a submit button" (WCAG technique H32). The site's two forms (the
    // index's status/label filter, the explainer's choices) submit nowhere: the CSP says
    // form-action 'none', the scripts cancel submit, and each change updates the page in place,
    // which is no change of context (WCAG 3.2.2 On Input). A submit button would do nothing, and
    // without JavaScript both forms stay hidden.
    "wcag/h32": "off",
  },
};
