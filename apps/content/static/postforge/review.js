/* The review console's content page: the live length counter of the variant being edited
   (measured by the server's own code: POST to the admin's measure endpoint, debounced) and
   the keyboard shortcuts (a approve, r reject, e edit, j next, k previous). Plain JS, no build; csrf from
   postforge/csrf.js (core). */
(function () {
  "use strict";

  function counter(form) {
    var box = form.closest(".pf-variant").querySelector("[data-counter]");
    if (!box) return;
    var caption = form.querySelector("textarea[name=caption]");
    var hashtags = form.querySelector("input[name=hashtags]");
    var timer = null, sent = 0;
    function measure() {
      var body = new FormData();
      body.append("platform", form.dataset.platform);
      body.append("post_type", form.dataset.postType);
      body.append("media_type", form.dataset.mediaType);
      body.append("caption", caption.value);
      body.append("hashtags", hashtags.value);
      var mine = ++sent;
      fetch(form.dataset.measureUrl, {
        method: "POST", body: body, credentials: "same-origin", headers: {"X-CSRFToken": window.pfCsrf(form)}
      }).then(function (r) { return r.ok ? r.json() : null; }).then(function (m) {
        if (!m || mine !== sent) return;  // a newer answer is on its way
        box.textContent = m.count + " / " + m.max + " " + m.unit;
        box.title = m.problem || "";
        box.classList.toggle("pf-over", m.over);
        box.dataset.count = m.count;
      });
    }
    function later() { clearTimeout(timer); timer = setTimeout(measure, 200); }
    caption.addEventListener("input", later);
    hashtags.addEventListener("input", later);
  }

  document.querySelectorAll("form.pf-edit-form").forEach(counter);
  var editing = document.querySelector("form.pf-edit-form textarea[name=caption]");
  if (editing) editing.focus();

  function go(selector) {
    var el = document.querySelector(selector);
    if (!el) return false;
    el.click();
    return true;
  }
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    var done = false;
    if (event.key === "a") done = go("#pf-approve");
    else if (event.key === "r") done = go("#pf-reject");
    else if (event.key === "e") done = go(".pf-edit-link");
    else if (event.key === "j") done = go("#pf-next");
    else if (event.key === "k") done = go("#pf-prev");
    if (done) event.preventDefault();
  });
})();
