// Results as you type. The page is whole without this script (a form and
// links); with it, each change of the search box asks the server for the
// same page's results part and puts it in place, the address following.
// The server renders and escapes every value, as for the whole page.
(() => {
  "use strict";
  const form = document.querySelector("form[role=search]");
  const box = form && form.querySelector("input[name=q]");
  const results = document.getElementById("results");
  if (!box || !results || !window.fetch || !window.AbortController) return;
  let inFlight = null;
  let asked = 0;
  let shown = 0;

  // What the form holds (the query, dates, the kept choices), without its
  // empty fields; paging starts again.
  const paramsFor = () => {
    const p = new URLSearchParams();
    for (const [k, v] of new FormData(form)) {
      if (v !== "") p.append(k, v);
    }
    return p;
  };

  const ask = () => {
    const typedAt = performance.now();
    const p = paramsFor();
    const n = ++asked;
    if (inFlight) inFlight.abort();
    inFlight = new AbortController();
    fetch("/?" + p, {
      headers: { "X-Gleaner-Partial": "1" },
      signal: inFlight.signal,
    })
      // A bad parameter (400) or a slow query (503) is gleaner's own page
      // part saying why; anything else (a proxy's error) is not shown.
      .then((r) => (r.ok || r.status === 400 || r.status === 503 ? r.text() : Promise.reject(new Error(r.status))))
      .then((html) => {
        if (n < shown) return;
        shown = n;
        results.innerHTML = html;
        history.replaceState(null, "", "/?" + p);
        document.title = (box.value ? box.value + " · " : "") + "gleaner search";
        // From the keystroke to its results on the page, for the bench.
        results.dataset.shownMs = (performance.now() - typedAt).toFixed(1);
      })
      .catch(() => {});
  };

  box.addEventListener("input", ask);
  // A date picked asks again too.
  for (const d of form.querySelectorAll("input[type=date]")) d.addEventListener("change", ask);
  // "/" anywhere else goes to the search box, as on most search sites.
  document.addEventListener("keydown", (e) => {
    const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement;
    if (e.key === "/" && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      box.focus();
      box.select();
    }
  });
})();
