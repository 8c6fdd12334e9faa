/* The admin calendar (templates/admin/publishing/calendar.html): month and week grids drawn from
   the data route; a scheduled post dropped on a day, an hour or a free slot is sent to the
   reschedule route, which calls the publishing service. No library, nothing from a CDN. */
(function () {
  "use strict";
  var root = document.getElementById("pf-calendar");
  if (!root) return;
  var ICONS = {instagram: "IG", facebook: "f", tiktok: "TT", youtube: "YT", linkedin: "in", x: "X",
               threads: "@", pinterest: "P", bluesky: "bs"};
  var NAMES = {instagram: "Instagram", facebook: "Facebook", tiktok: "TikTok", youtube: "YouTube",
               linkedin: "LinkedIn", x: "X", threads: "Threads", pinterest: "Pinterest", bluesky: "Bluesky"};
  var DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
  var MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
                "September", "October", "November", "December"];
  var browserTz = "UTC";
  try { browserTz = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC"; } catch (e) { /* old browser */ }
  var state = {
    org: root.dataset.org, view: root.dataset.view || "month", date: root.dataset.date || "",
    tz: root.dataset.tz || browserTz, brand: root.dataset.brand, profile: root.dataset.profile
  };
  var mayMove = root.dataset.mayMove === "1";
  var errorBox = document.getElementById("pf-cal-error");
  var dragged = null;

  // --- dates as "YYYY-MM-DD" strings, computed in UTC so the browser's zone never shifts them --
  function parse(d) { var p = d.split("-"); return new Date(Date.UTC(+p[0], +p[1] - 1, +p[2])); }
  function fmt(dt) { return dt.toISOString().slice(0, 10); }
  function addDays(d, n) { var dt = parse(d); dt.setUTCDate(dt.getUTCDate() + n); return fmt(dt); }
  function addMonths(d, n) { var dt = parse(d); dt.setUTCDate(1); dt.setUTCMonth(dt.getUTCMonth() + n); return fmt(dt); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function showError(text) {
    errorBox.textContent = text;
    errorBox.hidden = !text;
  }

  function query() {
    var q = new URLSearchParams({org: state.org, view: state.view, tz: state.tz});
    if (state.date) q.set("date", state.date);
    if (state.brand) q.set("brand", state.brand);
    if (state.profile) q.set("profile", state.profile);
    return q;
  }

  function load() {
    root.setAttribute("aria-busy", "true");
    var q = query();
    history.replaceState(null, "", "?" + q.toString());
    return fetch(root.dataset.dataUrl + "?" + q.toString(), {credentials: "same-origin"})
      .then(function (r) { return r.json().then(function (body) { return {ok: r.ok, body: body}; }); })
      .then(function (answer) {
        if (!answer.ok) { showError(answer.body.error || "The calendar could not be read."); return; }
        draw(answer.body);
        root.setAttribute("aria-busy", "false");
      })
      .catch(function (err) { showError("The calendar could not be read: " + err); });
  }

  // --- what a post and a free slot look like -------------------------------------------------------
  function icon(platform) {
    var i = el("span", "pf-pi pf-pi-" + platform, ICONS[platform] || platform.slice(0, 2));
    i.title = NAMES[platform] || platform;
    return i;
  }

  function postNode(p) {
    var a = el("a", "pf-cal-post pf-st-" + p.status);
    a.href = p.adminUrl;
    a.dataset.publication = p.id;
    a.dataset.status = p.status;
    a.dataset.time = p.time;
    a.dataset.date = p.date;
    a.title = p.time + " " + (NAMES[p.platform] || p.platform) + " @" + p.profile + " (" + p.brand + "): " + p.status +
      (p.error ? "\n" + p.error : "") + "\n" + p.text;
    var thumb = el("span", "pf-cal-thumb");
    if (p.thumb) {
      var img = el("img");
      img.src = p.thumb; img.alt = ""; img.loading = "lazy"; img.draggable = false;
      thumb.appendChild(img);
      if (p.mediaType === "video") thumb.appendChild(el("span", "pf-cal-play", "▶"));
    } else {
      thumb.classList.add("pf-cal-nothumb");
      thumb.textContent = p.mediaType === "video" ? "▶" : "Aa";
    }
    thumb.appendChild(icon(p.platform));
    a.appendChild(thumb);
    var body = el("span", "pf-cal-body");
    body.appendChild(el("strong", "pf-cal-time", p.time));
    body.appendChild(el("span", "pf-cal-status pf-st-" + p.status, p.status));
    body.appendChild(el("span", "pf-cal-text", p.text || "@" + p.profile));
    a.appendChild(body);
    if (p.draggable && mayMove) {
      var item = el("div", "pf-cal-item");
      item.appendChild(a);
      var moveButton = el("button", "pf-cal-moveto", "Move to…");
      moveButton.type = "button";
      moveButton.dataset.movePublication = p.id;
      moveButton.setAttribute("aria-label", "Move " + (NAMES[p.platform] || p.platform) + " @" + p.profile +
        " (" + p.date + " " + p.time + ") to another time");
      moveButton.addEventListener("click", function () { openMove(p); });
      item.appendChild(moveButton);
      a.draggable = true;
      a.classList.add("pf-cal-movable");
      a.addEventListener("dragstart", function (ev) {
        dragged = p;
        a.classList.add("pf-cal-dragging");
        ev.dataTransfer.effectAllowed = "move";
        ev.dataTransfer.setData("text/plain", p.id);
      });
      a.addEventListener("dragend", function () { a.classList.remove("pf-cal-dragging"); dragged = null; });
      return item;
    }
    return a;
  }

  // --- the keyboard's way to move a post (WCAG 2.1.1): "Move to…" asks for the new time -----------
  var moveDialog = document.getElementById("pf-cal-move");
  var moving = null;
  function openMove(p) {
    moving = p;
    document.getElementById("pf-cal-move-what").textContent =
      (NAMES[p.platform] || p.platform) + " @" + p.profile + ", now " + p.date + " " + p.time + " (" + state.tz + ")";
    var input = document.getElementById("pf-cal-move-when");
    input.value = p.date + "T" + p.time;
    moveDialog.showModal();
    input.focus();
  }
  if (moveDialog) {
    moveDialog.querySelector("form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var when = document.getElementById("pf-cal-move-when").value;
      var post = moving;
      moveDialog.close();
      if (!post || !when || when === post.date + "T" + post.time) return;
      move(post, when).then(function () {
        var again = root.querySelector('.pf-cal-moveto[data-move-publication="' + post.id + '"]') ||
          root.querySelector('[data-publication="' + post.id + '"]');
        if (again) again.focus();
      });
    });
    document.getElementById("pf-cal-move-cancel").addEventListener("click", function () { moveDialog.close(); });
  }

  function slotNode(s) {
    var d = el("div", "pf-cal-slot");
    d.dataset.date = s.date;
    d.dataset.time = s.time;
    d.dataset.profile = s.profileId;
    d.title = "Free posting slot of " + (NAMES[s.platform] || s.platform) + " @" + s.profile;
    d.appendChild(icon(s.platform));
    d.appendChild(el("span", "pf-cal-time", s.time));
    d.appendChild(el("span", "pf-cal-text", "free · @" + s.profile));
    dropTarget(d, function () { return {date: s.date, time: s.time}; });
    return d;
  }

  // --- dropping: a day keeps the post's time, an hour keeps its minutes, a slot is exact --------
  function dropTarget(node, when) {
    node.addEventListener("dragover", function (ev) {
      if (!dragged) return;
      ev.preventDefault();
      ev.stopPropagation();
      node.classList.add("pf-cal-over");
    });
    node.addEventListener("dragleave", function () { node.classList.remove("pf-cal-over"); });
    node.addEventListener("drop", function (ev) {
      if (!dragged) return;
      ev.preventDefault();
      ev.stopPropagation();
      node.classList.remove("pf-cal-over");
      var target = when(dragged);
      var moving = dragged;
      dragged = null;
      if (target.date === moving.date && target.time === moving.time) return;
      move(moving, target.date + "T" + target.time);
    });
  }

  function move(post, when) {
    showError("");
    var node = root.querySelector('[data-publication="' + post.id + '"]');
    if (node) node.classList.add("pf-cal-saving");
    return fetch(root.dataset.rescheduleUrl, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRFToken": window.pfCsrf()},
      body: JSON.stringify({publication: post.id, when: when, tz: state.tz})
    })
      .then(function (r) { return r.json().then(function (body) { return {ok: r.ok, body: body}; }); })
      .then(function (answer) {
        return load().then(function () {
          if (!answer.ok) {
            showError("Not moved (" + (NAMES[post.platform] || post.platform) + " @" + post.profile + ", " +
                      post.date + " " + post.time + " → " + when.replace("T", " ") + "): " + answer.body.error);
            var again = root.querySelector('[data-publication="' + post.id + '"]');
            if (again) again.classList.add("pf-cal-refused");
          }
        });
      })
      .catch(function (err) { showError("Not moved: " + err); });
  }

  // --- the grids ------------------------------------------------------------------------------------
  function byDate(items) {
    var out = {};
    items.forEach(function (x) { (out[x.date] = out[x.date] || []).push(x); });
    return out;
  }

  function today() {
    try {
      return new Intl.DateTimeFormat("en-CA", {timeZone: state.tz, year: "numeric", month: "2-digit", day: "2-digit"})
        .format(new Date());
    } catch (e) { return fmt(new Date()); }
  }

  function header(grid) {
    DAYS.forEach(function (d) { grid.appendChild(el("div", "pf-cal-dow", d)); });
  }

  function dayItems(cell, posts, slots) {
    var items = (posts || []).map(function (p) { return {time: p.time, node: postNode(p)}; })
      .concat((slots || []).map(function (s) { return {time: s.time, node: slotNode(s)}; }));
    items.sort(function (a, b) { return a.time < b.time ? -1 : a.time > b.time ? 1 : 0; });
    items.forEach(function (i) { cell.appendChild(i.node); });
  }

  function drawMonth(data, posts, slots) {
    var grid = el("div", "pf-cal-grid pf-cal-month");
    header(grid);
    var now = today();
    for (var i = 0; i < 42; i++) {
      var d = addDays(data.start, i);
      var cell = el("div", "pf-cal-day");
      cell.dataset.date = d;
      if (parse(d).getUTCMonth() + 1 !== data.month) cell.classList.add("pf-cal-other");
      if (d === now) cell.classList.add("pf-cal-today");
      if (d < now) cell.classList.add("pf-cal-past");
      cell.appendChild(el("div", "pf-cal-num", String(parse(d).getUTCDate())));
      dayItems(cell, posts[d], slots[d]);
      (function (day) {
        dropTarget(cell, function (p) { return {date: day, time: p.time}; });
      })(d);
      grid.appendChild(cell);
    }
    return grid;
  }

  function drawWeek(data, posts, slots) {
    var wrap = el("div", "pf-cal-weekwrap");
    var grid = el("div", "pf-cal-grid pf-cal-week");
    grid.appendChild(el("div", "pf-cal-dow pf-cal-corner", state.tz));
    var now = today();
    var days = [];
    for (var i = 0; i < 7; i++) {
      var d = addDays(data.start, i);
      days.push(d);
      var h = el("div", "pf-cal-dow" + (d === now ? " pf-cal-today" : ""), DAYS[i] + " " + parse(d).getUTCDate());
      h.dataset.date = d;
      grid.appendChild(h);
    }
    var first = 24;
    var hourRow = function (hh) {
      grid.appendChild(el("div", "pf-cal-hour", hh + ":00"));
      days.forEach(function (day) {
        var cell = el("div", "pf-cal-slotcell");
        cell.dataset.date = day;
        cell.dataset.hour = hh;
        if (day < now) cell.classList.add("pf-cal-past");
        var inHour = function (x) { return x.time.slice(0, 2) === hh; };
        var ps = (posts[day] || []).filter(inHour), ss = (slots[day] || []).filter(inHour);
        if (ps.length || ss.length) first = Math.min(first, +hh);
        dayItems(cell, ps, ss);
        dropTarget(cell, function (p) { return {date: day, time: hh + ":" + p.time.slice(3, 5)}; });
        grid.appendChild(cell);
      });
    };
    for (var hour = 0; hour < 24; hour++) hourRow((hour < 10 ? "0" : "") + hour);
    wrap.appendChild(grid);
    wrap.dataset.firstHour = String(first === 24 ? 8 : Math.min(first, 8));
    return wrap;
  }

  function draw(data) {
    var posts = byDate(data.posts), slots = byDate(data.slots);
    root.innerHTML = "";
    root.dataset.start = data.start;
    root.dataset.end = data.end;
    var title = document.getElementById("pf-cal-title");
    if (data.view === "week") {
      var last = addDays(data.start, 6);
      title.textContent = parse(data.start).getUTCDate() + " " + MONTHS[parse(data.start).getUTCMonth()].slice(0, 3) +
        " – " + parse(last).getUTCDate() + " " + MONTHS[parse(last).getUTCMonth()].slice(0, 3) + " " + parse(last).getUTCFullYear();
      var wrap = drawWeek(data, posts, slots);
      root.appendChild(wrap);
      var row = wrap.querySelectorAll(".pf-cal-hour")[+wrap.dataset.firstHour];
      var head = wrap.querySelector(".pf-cal-dow");
      if (row) wrap.scrollTop = row.offsetTop - (head ? head.offsetHeight : 0);
    } else {
      var mid = addDays(data.start, 14);
      title.textContent = MONTHS[parse(mid).getUTCMonth()] + " " + parse(mid).getUTCFullYear();
      root.appendChild(drawMonth(data, posts, slots));
    }
    var counts = el("p", "pf-cal-note pf-cal-counts",
      data.posts.length + " post" + (data.posts.length === 1 ? "" : "s") + ", " + data.slots.length +
      " free slot" + (data.slots.length === 1 ? "" : "s") + (data.slotsCut ? " (first shown)" : "") + " · times in " + data.tz);
    root.appendChild(counts);
    document.querySelectorAll(".pf-cal-views button").forEach(function (b) {
      b.classList.toggle("pf-cal-active", b.dataset.view === data.view);
    });
    // the month being looked at (its first day), for "Week" from the month view
    root.dataset.monthFirst = data.view === "week" ? "" : addDays(data.start, 14).slice(0, 8) + "01";
    if (!state.date) state.date = addDays(data.start, data.view === "week" ? 0 : 14);
  }

  // --- navigation ---------------------------------------------------------------------------------
  function step(n) {
    var d = state.date || today();
    state.date = state.view === "week" ? addDays(d, 7 * n) : addMonths(d, n);
    showError("");
    load();
  }
  document.getElementById("pf-cal-prev").addEventListener("click", function () { step(-1); });
  document.getElementById("pf-cal-next").addEventListener("click", function () { step(1); });
  document.getElementById("pf-cal-today").addEventListener("click", function () { state.date = today(); showError(""); load(); });
  document.querySelectorAll(".pf-cal-views button").forEach(function (b) {
    b.addEventListener("click", function () {
      var first = root.dataset.monthFirst;
      if (b.dataset.view === "week" && state.view === "month" && first) {
        // the week being looked at: today's when the month shown holds today, else its first week
        var now = today();
        state.date = now.slice(0, 8) === first.slice(0, 8) ? now : first;
      }
      state.view = b.dataset.view;
      showError("");
      load();
    });
  });
  var tzInput = document.getElementById("pf-cal-tz");
  if (tzInput && !tzInput.value) tzInput.value = state.tz;
  window.pfCalendar = {load: load, move: move, state: state};
  load();
})();
