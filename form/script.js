// Marvin's interview form. No libraries, no build step: it renders the questions inlined in
// the page, keeps a draft in localStorage, sends the answers to the local server that served
// it, and tells the person when the interview is over elsewhere.
"use strict";

(function () {
  const data = JSON.parse(document.getElementById("interview-data").textContent);
  const token = data.sessionToken;
  const questions = data.questions || [];
  const $ = (id) => document.getElementById(id);
  const form = $("form");
  const list = $("questions");
  const images = {}; // question id -> [{filename, mimeType, data, url, isAttachment}]
  const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
  const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];
  let finished = false;
  // The answers or the cancel are on their way: what a heartbeat hears meanwhile (the
  // interview already closed by them, or the server gone once it has them) is not news.
  let sending = false;
  let escapeAt = 0;

  // ---- rendering -------------------------------------------------------------------------

  // One element builder for the page and its blocks (blocks.js is loaded first).
  const el = window.MarvinBlocks.el;

  function recommended(q) {
    if (q.recommended === undefined || q.recommended === null) return [];
    return Array.isArray(q.recommended) ? q.recommended : [q.recommended];
  }

  function render() {
    if (data.title) {
      $("title").textContent = data.title;
      document.title = data.title + " · Marvin";
    }
    if (data.description) {
      $("description").textContent = data.description;
      $("description").hidden = false;
    }
    let number = 0;
    questions.forEach((q, index) => {
      if (q.type !== "info") number += 1;
      list.append(renderQuestion(q, number, index));
    });
    for (const box of list.querySelectorAll("fieldset")) box.dispatchEvent(new Event("change"));
  }

  // The question's media at `position` (above, below, side), and its content block.
  function blocks(q, index, position) {
    const nodes = (q.media || []).map((item, m) => [item, m])
      .filter(([item]) => (item.position || "above") === position)
      .map(([item, m]) => window.MarvinBlocks.media(item, index, m, token));
    if (position === "above" && q.content) nodes.push(window.MarvinBlocks.content(q.content));
    return nodes;
  }

  function renderQuestion(q, number, index) {
    const id = "q-" + q.id;
    const weight = q.weight ? " " + q.weight : "";
    if (q.type === "info") {
      return el("section", { class: "question info" + weight, id, "data-id": q.id, tabindex: "-1" },
        ...blocks(q, index, "side"),
        el("p", { class: "text", text: q.question }),
        q.context ? el("p", { class: "context", text: q.context }) : null,
        ...blocks(q, index, "above"), ...blocks(q, index, "below"));
    }
    const box = el("fieldset", { class: "question" + weight, id, "data-id": q.id, "data-type": q.type });
    const legend = el("legend", {}, el("span", { class: "number", text: number + "." }), q.question);
    if (q.optional) legend.append(el("span", { class: "optional", text: "optional" }));
    else box.setAttribute("aria-required", "true");
    box.append(legend, ...blocks(q, index, "side"));
    if (q.context) box.append(el("p", { class: "context", text: q.context }));
    box.append(...blocks(q, index, "above"));
    if (q.type === "single" || q.type === "multi") renderChoices(box, q);
    else if (q.type === "text") {
      box.append(el("textarea", { name: q.id, "aria-label": q.question, rows: "4" }));
    } else if (q.type === "image") renderImage(box, q);
    box.append(...blocks(q, index, "below"));
    box.append(el("p", { class: "error", id: "err-" + q.id, role: "alert", hidden: true }));
    return box;
  }

  function renderChoices(box, q) {
    const kind = q.type === "single" ? "radio" : "checkbox";
    const picks = recommended(q);
    for (const option of q.options || []) {
      const label = typeof option === "string" ? option : option.label;
      const detail = typeof option === "string" ? "" : option.description;
      // Recommended options start chosen, unless the model is only slightly sure.
      const input = el("input", { type: kind, name: q.id, value: label });
      input.checked = picks.includes(label) && q.conviction !== "slight";
      const text = el("span", {}, el("span", { class: "label", text: label }));
      if (picks.includes(label)) text.append(el("span", { class: "badge", text: "Recommended" }));
      if (detail) text.append(el("span", { class: "detail", text: detail }));
      if (typeof option !== "string" && option.content) text.append(window.MarvinBlocks.content(option.content));
      box.append(el("label", { class: "option" }, input, text));
    }
    // A closed question (yes or no, a server's list of values) takes only its options.
    const other = q.closed ? null : el("input", { type: kind, name: q.id, value: "__other__", "data-other": "1" });
    const otherText = q.closed ? null : el("input", {
      type: "text", class: "other-text", "data-other-text": q.id, hidden: true,
      "aria-label": "Your own answer to: " + q.question, placeholder: "Your answer",
    });
    if (other) {
      box.append(el("label", { class: "option" }, other,
        el("span", {}, el("span", { class: "label", text: "Other" }),
          el("span", { class: "detail", text: "type your own answer" }))), otherText);
    }
    box.addEventListener("change", () => {
      if (other) {
        otherText.hidden = !other.checked;
        if (other.checked && document.activeElement === other) otherText.focus();
      }
      for (const option of box.querySelectorAll(".option")) {
        option.classList.toggle("chosen", option.querySelector("input").checked);
      }
    });
  }

  function renderImage(box, q) {
    const picker = el("input", { type: "file", accept: IMAGE_TYPES.join(","), multiple: true, "aria-label": "Choose images for: " + q.question });
    const zone = el("label", { class: "dropzone", tabindex: "0" }, picker,
      el("span", { text: "Drop images here, paste them, or click to choose (PNG, JPEG, GIF, WebP; 5 MB each)" }));
    const path = el("input", {
      type: "text", class: "path-input", "data-path": q.id,
      placeholder: "…or type a file path on this machine", "aria-label": "Image path for: " + q.question,
    });
    const thumbs = el("div", { class: "thumbs", "aria-live": "polite" });
    box.append(zone, path, thumbs);
    picker.addEventListener("change", () => { addFiles(q.id, picker.files); picker.value = ""; });
    zone.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); picker.click(); }
    });
    zone.addEventListener("dragover", (event) => { event.preventDefault(); zone.classList.add("dragging"); });
    zone.addEventListener("dragleave", () => zone.classList.remove("dragging"));
    zone.addEventListener("drop", (event) => {
      event.preventDefault();
      zone.classList.remove("dragging");
      addFiles(q.id, event.dataTransfer.files);
    });
  }

  function addFiles(id, files) {
    for (const file of files) {
      if (!IMAGE_TYPES.includes(file.type)) {
        showFieldError(id, file.name + " is not a PNG, JPEG, GIF or WebP image.");
        continue;
      }
      if (file.size > MAX_IMAGE_BYTES) {
        showFieldError(id, file.name + " is larger than 5 MB.");
        continue;
      }
      const reader = new FileReader();
      reader.onload = () => {
        const url = String(reader.result);
        (images[id] = images[id] || []).push({
          filename: file.name || "pasted.png", mimeType: file.type,
          data: url.slice(url.indexOf(",") + 1), url,
        });
        clearFieldError(id);
        drawThumbs(id);
      };
      reader.readAsDataURL(file);
    }
  }

  function drawThumbs(id) {
    const thumbs = document.querySelector("#q-" + CSS.escape(id) + " .thumbs");
    thumbs.replaceChildren();
    (images[id] || []).forEach((image, index) => {
      const remove = el("button", { type: "button", "aria-label": "Remove " + image.filename, text: "×" });
      remove.addEventListener("click", () => { images[id].splice(index, 1); drawThumbs(id); });
      thumbs.append(el("figure", { class: "thumb" },
        el("img", { src: image.url, alt: image.filename }),
        el("span", { class: "name", text: image.filename }), remove));
    });
  }

  // ---- answers ---------------------------------------------------------------------------

  function collect() {
    const responses = [];
    for (const q of questions) {
      const box = $("q-" + q.id);
      if (q.type === "single" || q.type === "multi") {
        const chosen = [...box.querySelectorAll("input[name='" + CSS.escape(q.id) + "']:checked")];
        const values = chosen.map((input) => input.dataset.other
          ? box.querySelector("[data-other-text]").value.trim() : input.value).filter(Boolean);
        if (q.type === "single") responses.push({ id: q.id, value: values[0] || "" });
        else responses.push({ id: q.id, value: values });
      } else if (q.type === "text") {
        responses.push({ id: q.id, value: box.querySelector("textarea").value });
      } else if (q.type === "image") {
        const typed = box.querySelector("[data-path]").value.trim();
        responses.push({ id: q.id, value: typed ? [typed] : [] });
      }
    }
    const uploads = [];
    for (const [id, list] of Object.entries(images)) {
      for (const image of list) {
        uploads.push({ id, filename: image.filename, mimeType: image.mimeType, data: image.data });
      }
    }
    return { responses, images: uploads };
  }

  // What keeps the answers from being sent: required questions left unanswered, and "Other"
  // chosen with nothing typed; [{id, message}].
  function unanswered(body) {
    const missing = [];
    for (const q of questions) {
      if (q.type === "info") continue;
      const other = $("q-" + q.id).querySelector("input[data-other]");
      if (other && other.checked && !$("q-" + q.id).querySelector("[data-other-text]").value.trim()) {
        missing.push({ id: q.id, message: "Type your answer after choosing Other, or pick one of the options." });
        continue;
      }
      if (q.optional) continue;
      const reply = body.responses.find((r) => r.id === q.id);
      const values = reply ? [].concat(reply.value) : [];
      const given = values.some((v) => String(v).trim() !== "");
      const uploaded = (images[q.id] || []).length > 0;
      if (!given && !uploaded) missing.push({ id: q.id, message: "Please answer this question." });
    }
    return missing;
  }

  function showFieldErrors(errors) {
    for (const error of errors) showFieldError(error.id, error.message);
    const first = errors.length && $("q-" + errors[0].id);
    if (first) {
      first.scrollIntoView({ block: "center" });
      focusCard(first);
    }
  }

  function showFieldError(id, message) {
    const box = $("q-" + id);
    const error = $("err-" + id);
    if (!box || !error) {
      $("form-error").textContent = message;
      $("form-error").hidden = false;
      return;
    }
    box.classList.add("invalid");
    error.textContent = message;
    error.hidden = false;
  }

  function clearFieldError(id) {
    const box = $("q-" + id);
    if (!box) return;
    box.classList.remove("invalid");
    const error = $("err-" + id);
    if (error) error.hidden = true;
  }

  function clearErrors() {
    for (const q of questions) clearFieldError(q.id);
    $("form-error").hidden = true;
  }

  // `patience`: milliseconds before a request that got no answer counts as failed (a
  // connection the browser kept open to a server that is gone never answers).
  async function post(path, body, patience) {
    const abort = new AbortController();
    const timer = patience ? setTimeout(() => abort.abort(), patience) : null;
    const response = await fetch(path, {
      method: "POST",
      // The token goes in a header, checked before the server reads the body.
      headers: { "Content-Type": "application/json", "X-Marvin-Session": token },
      body: JSON.stringify(body),
      signal: abort.signal,
    }).finally(() => clearTimeout(timer));
    let payload = {};
    try { payload = await response.json(); } catch (_) { /* not JSON */ }
    return { status: response.status, payload };
  }

  async function submit() {
    if (finished) return;
    clearErrors();
    const body = collect();
    const missing = unanswered(body);
    if (missing.length) {
      showFieldErrors(missing);
      return;
    }
    $("submit").disabled = true;
    sending = true;
    try {
      const { status, payload } = await post("/submit", body);
      if (status === 200 && payload.ok) {
        clearDraft();
        end("Answers sent", "Marvin has your answers. You can close this tab.");
        return;
      }
      if (status === 409) {
        end("Interview closed", payload.error || "This interview has ended.");
        return;
      }
      const errors = (payload.errors || []).filter((e) => $("q-" + e.field));
      if (errors.length) {
        showFieldErrors(errors.map((e) => ({ id: e.field, message: e.message })));
      } else {
        showFieldError("", payload.error || "The answers could not be sent (HTTP " + status + ").");
      }
    } catch (error) {
      showFieldError("", "Marvin is not reachable any more: " + error.message);
    } finally {
      sending = false;
      $("submit").disabled = finished;
    }
  }

  async function cancel() {
    if (finished) return;
    sending = true;
    try { await post("/cancel", {}); } catch (_) { /* the server is gone; say so anyway */ }
    end("Interview cancelled", "Marvin was told you cancelled. You can close this tab.");
  }

  function end(title, text) {
    finished = true;
    for (const control of form.querySelectorAll("input, textarea, button")) control.disabled = true;
    $("overlay-title").textContent = title;
    $("overlay-text").textContent = text;
    $("overlay").hidden = false;
    clearInterval(timers.countdown);
    clearInterval(timers.heartbeat);
  }

  // ---- draft in localStorage -------------------------------------------------------------

  function hash(text) {
    let h = 2166136261;
    for (let i = 0; i < text.length; i += 1) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 16777619);
    }
    return (h >>> 0).toString(16);
  }

  const draftKey = "marvin-interview-" + hash(JSON.stringify(questions));

  // The answers in progress, question by question: {id: {picks, other} | {text} | {paths}}.
  function currentAnswers() {
    const answers = {};
    for (const q of questions) {
      const box = $("q-" + q.id);
      if (q.type === "single" || q.type === "multi") {
        const picks = [...box.querySelectorAll("input[name='" + CSS.escape(q.id) + "']:checked")]
          .filter((input) => !input.dataset.other).map((input) => input.value);
        const otherBox = box.querySelector("input[data-other]");
        const other = otherBox && otherBox.checked
          ? box.querySelector("[data-other-text]").value : null;
        answers[q.id] = { picks, other };
      } else if (q.type === "text") {
        answers[q.id] = { text: box.querySelector("textarea").value };
      } else if (q.type === "image") {
        const typed = box.querySelector("[data-path]").value;
        answers[q.id] = { paths: typed ? [typed] : [] };
      }
    }
    return answers;
  }

  function applyAnswers(answers) {
    for (const q of questions) {
      const entry = answers[q.id];
      const box = $("q-" + q.id);
      if (!entry || !box) continue;
      if (entry.picks) {
        for (const input of box.querySelectorAll("input[name='" + CSS.escape(q.id) + "']")) {
          input.checked = input.dataset.other ? entry.other !== null && entry.other !== undefined
            : entry.picks.includes(input.value);
        }
        const otherText = box.querySelector("[data-other-text]");
        if (otherText) otherText.value = entry.other || "";
      } else if (typeof entry.text === "string" && q.type === "text") {
        box.querySelector("textarea").value = entry.text;
      } else if (entry.paths && q.type === "image") {
        box.querySelector("[data-path]").value = entry.paths[0] || "";
      }
    }
    for (const box of list.querySelectorAll("fieldset")) box.dispatchEvent(new Event("change"));
  }

  // Kept in this browser, and sent to Marvin (a moment after the last change) so that the
  // terminal, or this page opened again elsewhere, continues from it.
  function saveDraft() {
    if (finished) return;
    const draft = { at: Date.now(), answers: currentAnswers() };
    try { localStorage.setItem(draftKey, JSON.stringify(draft)); } catch (_) { /* storage full or off */ }
    clearTimeout(timers.draft);
    timers.draft = setTimeout(() => { post("/draft", draft).catch(() => {}); }, 400);
  }

  // The newer of this browser's draft and the one Marvin keeps (the terminal's answers, or
  // another page's).
  function restoreDraft() {
    let local = null;
    try { local = JSON.parse(localStorage.getItem(draftKey) || "null"); } catch (_) { local = null; }
    const kept = data.draft;
    const candidates = [local, kept].filter((d) => d && d.answers && typeof d.at === "number");
    if (!candidates.length) return;
    candidates.sort((a, b) => b.at - a.at);
    applyAnswers(candidates[0].answers);
  }

  function clearDraft() {
    try { localStorage.removeItem(draftKey); } catch (_) { /* nothing to clear */ }
  }

  // ---- countdown and heartbeat -----------------------------------------------------------

  const timers = {};
  // Marvin says how long is left when it serves the page: opened late (through a tunnel,
  // say), or reloaded, the page stops when Marvin does, not a whole timeout later.
  const remaining = Number(data.remainingMs);
  const deadline = Date.now() + (Number.isFinite(remaining) ? remaining : (Number(data.timeout) || 600) * 1000);

  function tick() {
    const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    const badge = $("countdown");
    badge.hidden = false;
    badge.querySelector(".countdown-value").textContent =
      Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
    badge.classList.toggle("soon", left <= 120);
    badge.classList.toggle("urgent", left <= 30);
    badge.setAttribute("aria-live", left <= 30 ? "polite" : "off");
    if (left === 0) expire();
  }

  // The deadline passed: Marvin stopped waiting. The page closes itself in 10 s unless the
  // person stays (to read or copy what they typed, which the draft also keeps).
  const CLOSE_AFTER = 10;

  function expire() {
    if (finished) return;
    end("Time is up", "Marvin stopped waiting for these answers. What you typed stays in this browser's draft.");
    let left = CLOSE_AFTER;
    $("close-in").textContent = String(left);
    $("overlay-countdown").hidden = false;
    $("overlay-actions").hidden = false;
    for (const button of $("overlay-actions").querySelectorAll("button")) button.disabled = false;
    $("stay").focus();
    timers.close = setInterval(() => {
      left -= 1;
      $("close-in").textContent = String(left);
      if (left <= 0) closeTab();
    }, 1000);
  }

  function stay() {
    clearInterval(timers.close);
    $("overlay").hidden = true;
    $("form-error").textContent = "Time is up: Marvin stopped waiting, so these answers can no longer be sent. They stay here to read or copy.";
    $("form-error").hidden = false;
  }

  function closeTab() {
    clearInterval(timers.close);
    $("overlay-countdown").hidden = true;
    $("overlay-actions").hidden = true;
    window.close();
    // A tab the page did not open itself cannot be closed by it.
    $("overlay-text").textContent = "You can close this tab now.";
  }

  async function heartbeat() {
    try {
      const { payload } = await post("/heartbeat", {}, 4000);
      if (payload.state && payload.state !== "open" && !finished && !sending) {
        end("Interview closed", payload.message || "This interview has ended.");
      }
    } catch (_) {
      // The server stops as soon as the tool returns, e.g. right after a terminal answer.
      if (!finished && !sending) {
        end("Interview closed", "Marvin is no longer waiting for these answers: they were given in the terminal, or the interview was stopped. You can close this tab.");
      }
    }
  }

  // ---- keyboard --------------------------------------------------------------------------

  function cards() {
    return [...list.querySelectorAll(".question")];
  }

  // `scroll` false: the focus moves without scrolling (a fresh page stays at its top, with
  // its description and first question in view).
  function focusCard(card, scroll = true) {
    for (const other of cards()) other.classList.toggle("current", other === card);
    const target = card.querySelector("input:checked, input:not([type=file]), textarea, .dropzone") || card;
    target.focus({ preventScroll: !scroll });
    if (scroll) card.scrollIntoView({ block: "nearest" });
  }

  // What the browser scrolls into view (a focused field, a question with an error) stops
  // below the sticky header, however tall the title and description make it.
  function keepClearOfHeader() {
    const header = document.querySelector("header.top");
    document.documentElement.style.scrollPaddingTop = (header.offsetHeight + 8) + "px";
  }

  function typing(target) {
    return target.tagName === "TEXTAREA" || (target.tagName === "INPUT" && target.type === "text");
  }

  document.addEventListener("keydown", (event) => {
    if (finished) return;
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      event.preventDefault();
      submit();
      return;
    }
    if (event.key === "Escape") {
      const now = Date.now();
      if (now - escapeAt < 1500) { cancel(); return; }
      escapeAt = now;
      toast("Press Esc again to cancel the interview.");
      return;
    }
    // Enter chooses an option and never sends the form by accident (Ctrl+Enter sends).
    if (event.key === "Enter" && event.target.tagName === "INPUT") {
      event.preventDefault();
      if (event.target.type === "radio" || event.target.type === "checkbox") event.target.click();
      return;
    }
    const card = event.target.closest && event.target.closest(".question");
    if (!card || typing(event.target)) return;
    const all = cards();
    const index = all.indexOf(card);
    if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
      const next = all[index + (event.key === "ArrowRight" ? 1 : -1)];
      if (next) { event.preventDefault(); focusCard(next); }
      return;
    }
    // Radios move with the arrows natively; checkboxes do not, so do it for them.
    if ((event.key === "ArrowDown" || event.key === "ArrowUp") && event.target.type === "checkbox") {
      const boxes = [...card.querySelectorAll("input[type=checkbox]")];
      const next = boxes[boxes.indexOf(event.target) + (event.key === "ArrowDown" ? 1 : -1)];
      if (next) { event.preventDefault(); next.focus(); }
    }
  });

  list.addEventListener("focusin", (event) => {
    const card = event.target.closest(".question");
    for (const other of cards()) other.classList.toggle("current", other === card);
  });

  document.addEventListener("paste", (event) => {
    const files = [...(event.clipboardData ? event.clipboardData.files : [])];
    if (!files.length) return;
    const current = list.querySelector(".question.current[data-type=image]")
      || list.querySelector(".question[data-type=image]");
    if (!current) return;
    event.preventDefault();
    addFiles(current.dataset.id, files);
  });

  function toast(text) {
    const node = $("toast");
    node.textContent = text;
    node.hidden = false;
    clearTimeout(timers.toast);
    timers.toast = setTimeout(() => { node.hidden = true; }, 2500);
  }

  // ---- start -----------------------------------------------------------------------------

  render();
  restoreDraft();
  form.addEventListener("input", (event) => {
    saveDraft();
    const card = event.target.closest(".question");
    if (card) clearFieldError(card.dataset.id);
  });
  form.addEventListener("change", saveDraft);
  form.addEventListener("submit", (event) => { event.preventDefault(); submit(); });
  $("cancel").addEventListener("click", cancel);
  $("stay").addEventListener("click", stay);
  $("close").addEventListener("click", closeTab);
  tick();
  timers.countdown = setInterval(tick, 1000);
  timers.heartbeat = setInterval(heartbeat, 5000);
  heartbeat();
  keepClearOfHeader();
  window.addEventListener("resize", keepClearOfHeader);
  const first = cards().find((card) => !card.classList.contains("info"));
  if (first) focusCard(first, false);
})();
