// The gateway's page: the sessions, one session as a chat, and its tools' questions and
// approvals as cards. Plain DOM, no framework; every text is set as text, never as HTML.
(() => {
  'use strict';
  const token = new URLSearchParams(location.search).get('token') || '';
  const $ = (id) => document.getElementById(id);
  // This page, as the gateway tells its clients apart (interactive mode is per client, and an
  // answer names who gave it): kept across reloads of this tab, so its answers stay its own.
  const client = (() => {
    const made = 'page-' + Math.random().toString(36).slice(2, 12);
    try {
      const kept = sessionStorage.getItem('marvin-client') || made;
      sessionStorage.setItem('marvin-client', kept);
      return kept;
    } catch (_) {
      return made;
    }
  })();
  const OFF_HINT = 'Questions are not answered in this page: tick "Answer questions in this page" to answer.';
  const TYPES = ['user_message', 'text_delta', 'notice', 'notification', 'session_status', 'tool_call_start',
    'tool_result', 'tool_progress', 'tool_call_end', 'question_prompt', 'approval_required',
    'form_opened', 'interaction_response', 'done', 'error'];
  let state = fresh(null);
  // The session being made (New session, or a first message), while it is.
  let starting = null;

  function fresh(id) {
    return { id, source: null, lastSeq: 0, bubble: null, tools: new Map(), cards: new Map(),
      mine: new Set(), running: false };
  }

  async function api(method, path, body) {
    const options = { method, headers: { Authorization: 'Bearer ' + token } };
    if (body !== undefined) {
      options.headers['Content-Type'] = 'application/json';
      options.body = JSON.stringify(body);
    }
    try {
      const response = await fetch(path, options);
      let data = {};
      try { data = await response.json(); } catch (_) { /* no body */ }
      return { status: response.status, data };
    } catch (error) {
      return { status: 0, data: { error: 'Marvin cannot be reached: ' + error.message } };
    }
  }

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    Object.entries(props || {}).forEach(([key, value]) => {
      if (key === 'text') node.textContent = value;
      else if (key === 'class') node.className = value;
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else if (value === true) node.setAttribute(key, '');
      else if (value !== false && value !== undefined) node.setAttribute(key, value);
    });
    children.flat().forEach((child) => { if (child) node.append(child); });
    return node;
  }

  function scrollDown() {
    const log = $('log');
    log.scrollTop = log.scrollHeight;
  }

  // ---- sessions ---------------------------------------------------------------------------

  async function loadSessions() {
    const { data } = await api('GET', '/api/sessions');
    const list = $('session-list');
    list.replaceChildren();
    (data.sessions || []).forEach((session) => {
      const when = session.served ? (session.running ? 'answering…' : 'open') : (session.updated || '');
      const name = session.name || (session.served ? 'New session' : session.id);
      if (session.id === state.id && session.name) $('session-title').textContent = session.name;
      const button = el('button', { type: 'button', 'data-id': session.id,
        'aria-current': String(session.id === state.id),
        onclick: () => openSession(session) },
      el('span', { text: name }), el('span', { class: 'meta', text: session.id + ' · ' + when }));
      list.append(el('li', {}, button));
    });
  }

  // Starts a session (once, however often it is asked for while it starts); whether it did.
  function newSession() {
    if (!starting) {
      starting = api('POST', '/api/sessions', { code: $('coding').checked }).then(({ status, data }) => {
        if (status !== 201) {
          showError(data.error || 'Cannot start a session.');
          return false;
        }
        connect(data.id, 'New session');
        loadSessions();
        return true;
      }).finally(() => { starting = null; });
    }
    return starting;
  }

  async function openSession(session) {
    if (session.served) return connect(session.id, session.name || 'New session');
    const { status, data } = await api('POST', '/api/sessions', { resume: session.id });
    if (status !== 200 && status !== 201) return showError(data.error || 'Cannot take it up.');
    connect(data.id, session.name || session.id);
    loadSessions();
  }

  function connect(id, title) {
    if (state.source) state.source.close();
    state = fresh(id);
    $('session-title').textContent = title;
    $('log').replaceChildren();
    // The session's notices say its mode as they replay.
    $('coding').checked = false;
    setRunning(false);
    const url = '/api/sessions/' + encodeURIComponent(id) + '/events?since=0&token=' +
      encodeURIComponent(token) + '&client=' + client;
    const source = new EventSource(url);
    TYPES.forEach((type) => source.addEventListener(type, (message) => {
      const event = JSON.parse(message.data);
      // A reconnect replays from the start: what was shown is not shown twice.
      if (event.seq <= state.lastSeq) return;
      state.lastSeq = event.seq;
      handle(event);
    }));
    state.source = source;
    const hint = $('attach-hint');
    hint.hidden = false;
    hint.textContent = "In a terminal: marvin --attach '" + location.origin + '/?token=' + token + '#' + id + "'";
    // A reload comes back to this session.
    history.replaceState(null, '', location.pathname + location.search + '#' + encodeURIComponent(id));
    // The gateway may remember this client from before a reload: it hears the box as it is.
    setInteractive();
    document.querySelectorAll('#session-list button').forEach((b) =>
      b.setAttribute('aria-current', String(b.dataset.id === id)));
  }

  // ---- events -----------------------------------------------------------------------------

  function handle(event) {
    const handlers = {
      user_message: () => { addBubble('user', event.content); state.bubble = null; setRunning(true); },
      text_delta: () => appendText(event.text),
      notice: () => {
        addBubble('notice', event.message);
        if (typeof event.coding === 'boolean') $('coding').checked = event.coding;
      },
      notification: () => addBubble('notice', '🔔 ' + event.message),
      session_status: () => status(event),
      tool_call_start: () => (event.calls || []).forEach(startTool),
      tool_result: () => endTool(event),
      question_prompt: () => questionCard(event),
      approval_required: () => approvalCard(event),
      form_opened: () => addBubble('notice', 'A form is open for the interview: ' + event.title + ' (' + event.url + ')'),
      interaction_response: () => closeCard(event),
      // The session's name comes with its first saved turn.
      done: () => { state.bubble = null; setRunning(false); usage(event.usage); loadSessions(); },
      error: () => { addBubble('error', event.message); state.bubble = null; setRunning(false); },
    };
    (handlers[event.type] || (() => {}))();
    scrollDown();
  }

  function addBubble(kind, text) {
    const bubble = el('div', { class: 'bubble ' + kind, text });
    $('log').append(bubble);
    return bubble;
  }

  // The answer so far, rendered as Markdown (markdown.js) at most once a frame as it streams.
  function appendText(text) {
    if (!state.bubble) {
      state.bubble = addBubble('assistant markdown', '');
      state.bubble.source = '';
    }
    const bubble = state.bubble;
    bubble.source += text;
    if (bubble.pending) return;
    bubble.pending = setTimeout(() => {
      bubble.pending = null;
      bubble.replaceChildren(window.MarvinMarkdown.render(bubble.source));
      scrollDown();
    }, 16);
  }

  function startTool(call) {
    state.bubble = null;
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments, null, 2);
    const summary = el('summary', { text: '… ' + call.name });
    const block = el('details', { class: 'tool' }, summary, el('pre', { text: args }));
    state.tools.set(call.id, { block, summary, name: call.name });
    $('log').append(block);
  }

  function endTool(event) {
    const tool = state.tools.get(event.id);
    if (!tool) return;
    const seconds = (event.elapsed_ms / 1000).toFixed(1);
    // A call the ticket gate turned back is not a failure: a quiet line, as in the terminal.
    const mark = event.turned_back ? '· ' : event.is_error ? '✗ ' : '✓ ';
    tool.summary.textContent = mark + tool.name + ' · ' + seconds + ' s' +
      (event.turned_back ? ' (waits for a ticket)' : '');
    if (event.is_error && !event.turned_back) tool.block.classList.add('failed');
    const output = event.output.length > 8000 ? event.output.slice(0, 8000) + '\n…' : event.output;
    tool.block.append(el('pre', { class: 'result', text: output }));
  }

  function status(event) {
    const usage = event.usage || {};
    const tokens = usage.input_tokens !== undefined ? ' · ' + usage.input_tokens + ' in / ' + usage.output_tokens + ' out' : '';
    $('status').textContent = event.model + tokens;
  }

  function usage(u) {
    if (!u) return;
    const cost = u.cost_usd ? ' · $' + u.cost_usd.toFixed(4) : '';
    $('status').textContent = u.input_tokens + ' in / ' + u.output_tokens + ' out' + cost + ' · ' + (u.elapsed_ms / 1000).toFixed(1) + ' s';
  }

  function setRunning(running) {
    state.running = running;
    $('send').disabled = running;
    $('cancel').hidden = !running;
  }

  // ---- cards ------------------------------------------------------------------------------

  // A card is found by its prompt's interactionId. A question asked again (a reprompt, or one
  // left open by its tool: both say why in `error`) takes the place of the call's card before it,
  // with what was entered; other prompts of one call (a sub-agent's) each get a card.
  function placeCard(card, event) {
    const id = String(event.interactionId);
    const before = event.error && [...document.querySelectorAll('#log .card')].reverse()
      .find((c) => c.dataset.call === String(event.toolCallId));
    if (before) before.replaceWith(card); else $('log').append(card);
    state.cards.set(id, card);
  }

  function answered(event, action, body) {
    return api('POST', '/api/sessions/' + state.id + '/' + action,
      Object.assign({ interactionId: String(event.interactionId), toolCallId: event.toolCallId, client }, body));
  }

  function questionCard(event) {
    const form = el('form', { class: 'card', 'data-call': event.toolCallId });
    const submit = el('button', { type: 'submit', disabled: true, text: 'Submit' });
    const fields = event.questions.map((question, q) => questionField(question, q, () => {
      const ready = fields.every((f) => f.value() !== '');
      submit.dataset.ready = String(ready);
      submit.disabled = !ready;
    }));
    fields.forEach((f) => form.append(f.node));
    const error = el('p', { class: 'error', role: 'alert', hidden: !event.error, text: event.error || '' });
    form.append(error, el('div', { class: 'actions' }, submit));
    form.fields = fields;
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const answers = {};
      fields.forEach((f) => { answers[f.question] = f.value(); });
      submit.disabled = true;
      state.mine.add(String(event.interactionId));
      const { status, data } = await answered(event, 'submit-answers', { answers });
      if (status === 200) return;
      state.mine.delete(String(event.interactionId));
      if (status === 409) return markDone(form, 'Answered on another device.');
      error.hidden = false;
      error.textContent = data.error || 'The answer was not taken.';
      submit.disabled = false;
    });
    placeCard(form, event);
    fields.forEach((f) => f.restore(f.initial));
    if (!$('interactive').checked) return readOnly(form, true);
    const first = fields.map((f) => f.focusable()).find(Boolean) || form.querySelector('input');
    // Never taken from someone typing a message: their next Enter would answer the card.
    const typing = document.activeElement === $('message') && $('message').value !== '';
    if (first && !typing) first.focus({ preventScroll: true });
  }

  function questionField(question, q, changed) {
    const multi = question.multiSelect;
    const name = 'q' + q + '-' + Math.random().toString(36).slice(2);
    const set = el('fieldset', {}, el('span', { class: 'chip', text: question.header }),
      el('legend', { text: question.question }));
    const inputs = question.options.map((option) => {
      const input = el('input', { type: multi ? 'checkbox' : 'radio', name, value: option.label, onchange: changed });
      set.append(el('label', { class: 'option' }, input,
        el('span', {}, el('span', { text: option.label }),
          option.description ? el('span', { class: 'description', text: option.description }) : null)));
      return input;
    });
    const other = el('input', { type: multi ? 'checkbox' : 'radio', name, value: '', onchange: changed });
    const otherText = el('input', { type: 'text', 'aria-label': 'Your own answer', placeholder: 'Other: your own answer',
      oninput: () => { other.checked = otherText.value.trim() !== ''; changed(); } });
    set.append(el('label', { class: 'option' }, other, otherText));
    const value = () => {
      const own = other.checked ? otherText.value.trim() : '';
      const labels = inputs.filter((i) => i.checked).map((i) => i.value);
      if (!multi) return own || labels.join(', ');
      return labels.concat(own ? [own] : []).join(', ');
    };
    // A reprompt: what was entered is chosen again (seed 003's initialValues); an answered
    // card: what was answered.
    const initial = question.initial;
    const restore = (chosen) => {
      if (!chosen) return;
      inputs.forEach((i) => { i.checked = (chosen.chosen || []).includes(i.value); });
      if (chosen.other !== null && chosen.other !== undefined) {
        other.checked = true;
        otherText.value = chosen.other;
      }
      changed();
    };
    // Where the person goes on: the empty "Other" they left.
    const focusable = () => (initial && other.checked && otherText.value.trim() === '' ? otherText : null);
    return { node: set, question: question.question, value, restore, focusable, initial };
  }

  function approvalCard(event) {
    const card = el('div', { class: 'card', 'data-call': event.toolCallId });
    const reason = el('input', { type: 'text', 'aria-label': 'What to do instead', placeholder: 'What to do instead (optional)' });
    const error = el('p', { class: 'error', role: 'alert', hidden: true });
    const send = async (action, body) => {
      state.mine.add(String(event.interactionId));
      card.querySelectorAll('button').forEach((b) => { b.disabled = true; });
      const { status, data } = await answered(event, action, body);
      if (status === 200) return;
      state.mine.delete(String(event.interactionId));
      if (status === 409) return markDone(card, 'Answered on another device.');
      error.hidden = false;
      error.textContent = data.error || 'The answer was not taken.';
      card.querySelectorAll('button').forEach((b) => { b.disabled = false; });
    };
    const scopes = event.scopes || ['once', 'session', 'always'];
    const labels = { once: 'Approve once', session: 'For this session', always: 'Always here',
      all_edits: 'All file edits this session' };
    card.append(el('span', { class: 'chip', text: event.tool }), el('p', { text: event.summary }),
      el('pre', { text: event.detail }),
      event.covers ? el('p', { class: 'description', text: 'A session or always grant covers ' + event.covers + '.' }) : null,
      el('div', { class: 'actions' },
        scopes.map((scope) => el('button', { type: 'button', 'data-scope': scope, text: labels[scope] || scope,
          onclick: () => send('approve', { scope }) })),
        reason,
        el('button', { type: 'button', class: 'secondary', 'data-deny': true, text: 'Deny',
          onclick: () => send('deny', { reason: reason.value }) })),
      error);
    if (event.error) { error.hidden = false; error.textContent = event.error; }
    placeCard(card, event);
    if (!$('interactive').checked) readOnly(card, true);
  }

  // Interactive mode off: the cards stay in view, read-only, with a hint.
  function readOnly(card, off) {
    if (card.classList.contains('done')) return;
    card.querySelectorAll('input, button, textarea').forEach((node) => {
      node.disabled = off || (node.type === 'submit' && node.dataset.ready !== 'true');
    });
    let hint = card.querySelector('.hint');
    if (off && !hint) card.append(el('p', { class: 'hint', text: OFF_HINT }));
    if (!off && hint) hint.remove();
  }

  async function setInteractive() {
    const on = $('interactive').checked;
    state.cards.forEach((card) => readOnly(card, !on));
    if (state.id) {
      await api('POST', '/api/sessions/' + state.id + '/interaction-mode', { client, enabled: on });
    }
  }

  // Coding mode for the session open (sent as `!code`, as the REPL has it); a new session is
  // made in the mode the box says.
  async function setCoding() {
    if (!state.id) return;
    const { status, data } = await api('POST', '/api/sessions/' + state.id + '/messages', { content: '!code' });
    if (status === 200) {
      $('coding').checked = data.coding;
      showError('');
    } else {
      $('coding').checked = !$('coding').checked;
      showError(data.error || 'The mode did not change.');
    }
  }

  // A card answered (by this page, before a reload too, or elsewhere) shows what was chosen.
  function closeCard(event) {
    const id = String(event.id);
    const card = state.cards.get(id);
    if (!card) return;
    const mine = state.mine.has(id) || event.by === client;
    (card.fields || []).forEach((f, n) => f.restore((event.answers || [])[n]));
    markDone(card, outcome(event.outcome || '', mine));
  }

  function outcome(said, mine) {
    if (said === 'timed out') return 'Nobody answered in time.';
    if (!/^(answered|approved|denied)\b/.test(said)) return said.charAt(0).toUpperCase() + said.slice(1);
    const what = said.replace(/^answered: /, '');
    return (mine ? 'Answered: ' : 'Answered on another device: ') + what;
  }

  function markDone(card, text) {
    card.classList.add('done');
    card.querySelectorAll('input, button, textarea').forEach((node) => { node.disabled = true; });
    if (!card.querySelector('.summary')) card.append(el('p', { class: 'summary', text }));
  }

  // ---- composer ---------------------------------------------------------------------------

  function showError(text) {
    const error = $('composer-error');
    error.hidden = !text;
    error.textContent = text || '';
  }

  // Sends the message; the first from the landing page starts a session for it.
  async function send(e) {
    e.preventDefault();
    const text = $('message').value.trim();
    if (!text || state.running) return;
    if (starting) await starting;
    if (!state.id && !(await newSession())) return;
    const { status, data } = await api('POST', '/api/sessions/' + state.id + '/messages', { content: text });
    if (status === 202 || (status === 200 && typeof data.coding === 'boolean')) {
      $('message').value = '';
      showError('');
    } else {
      showError(data.error || 'The message was not sent.');
    }
  }

  document.addEventListener('DOMContentLoaded', () => {
    $('new-session').addEventListener('click', newSession);
    $('interactive').addEventListener('change', setInteractive);
    $('coding').addEventListener('change', setCoding);
    $('composer').addEventListener('submit', send);
    $('message').addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) send(e);
    });
    $('cancel').addEventListener('click', () => api('POST', '/api/sessions/' + state.id + '/cancel', {}));
    loadSessions().then(() => {
      const id = decodeURIComponent(location.hash.slice(1));
      if (!id) return;
      const listed = document.querySelector('#session-list button[data-id="' + CSS.escape(id) + '"]');
      const title = listed ? listed.firstChild.textContent : 'Session ' + id;
      connect(id, title);
    });
  });
})();
