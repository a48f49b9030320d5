// The gateway's page: the sessions, one session as a chat, and its tools' questions as cards
// (made by cards.js) in their tool's block or on their own. Plain DOM, no framework; every
// text is set as text, never as HTML.
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
  const TYPES = ['user_message', 'text_delta', 'notice', 'notification', 'session_status', 'tool_call_start',
    'tool_result', 'tool_progress', 'tool_call_end', 'interaction_request', 'interaction_response', 'done', 'error',
    // Seeds 001 and 004 name questions so (sent beside interaction_request), as does an older
    // Marvin's event log.
    'question_prompt', 'approval_required', 'form_opened', 'input_request'];
  let state = fresh(null);
  // A reload shows the latest activity (scrollDown), not where the page was scrolled before.
  if ('scrollRestoration' in history) history.scrollRestoration = 'manual';
  // The session being made (New session, or a first message), while it is.
  let starting = null;

  function fresh(id) {
    return { id, source: null, lastSeq: 0, bubble: null, tools: new Map(), cards: new Map(),
      mine: new Set(), running: false, put: null };
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

  const el = window.MarvinCards.el;

  // The latest activity in view, wherever the conversation scrolls (the log; the page on a
  // phone): its end, and the top of the question that waits, if one does. A person who
  // scrolled away from where the page put the view is left there until they are back at the
  // end.
  function scrollDown() {
    const log = $('log');
    const page = document.scrollingElement;
    const moved = state.put &&
      (Math.abs(log.scrollTop - state.put[0]) > 2 || Math.abs(page.scrollTop - state.put[1]) > 2);
    const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 4 &&
      page.scrollTop + page.clientHeight >= page.scrollHeight - 4;
    if (moved && !atEnd) return;
    log.scrollTop = log.scrollHeight;
    page.scrollTop = page.scrollHeight;
    const open = [...log.querySelectorAll('.card:not(.done)')].pop();
    if (open && open.getBoundingClientRect().top < Math.max(log.getBoundingClientRect().top, 0)) {
      open.scrollIntoView({ block: 'start' });
    }
    state.put = [log.scrollTop, page.scrollTop];
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
    // The answer's text waiting for its frame is drawn before whatever follows it, so that a
    // question or a tool is laid out under the whole answer: a replayed session puts its
    // question in view once, not over an answer still to be drawn above it.
    if (event.type !== 'text_delta') drawText();
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
      tool_progress: () => progress(event),
      interaction_request: () => request(event),
      question_prompt: () => older(event, 'questions'),
      approval_required: () => older(event, 'approval'),
      form_opened: () => request(Object.assign({ interactionType: 'form' }, event)),
      input_request: () => request(Object.assign({ interactionType: 'input' }, event)),
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
    bubble.pending = setTimeout(() => { drawText(bubble); scrollDown(); }, 16);
  }

  // The answer's text that waits for its frame, drawn now.
  function drawText(bubble = state.bubble) {
    if (!bubble || !bubble.pending) return;
    clearTimeout(bubble.pending);
    bubble.pending = null;
    bubble.replaceChildren(window.MarvinMarkdown.render(bubble.source));
  }

  function startTool(call) {
    state.bubble = null;
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments, null, 2);
    const summary = el('summary', { text: '… ' + call.name });
    const block = el('details', { class: 'tool' }, summary, el('pre', { text: args }));
    state.tools.set(call.id, { block, summary, name: call.name });
    $('log').append(block);
  }

  // How far a call under way is (a command's last lines of output so far), in its block until
  // its result comes: each report replaces the one before. A block opened to show it closes
  // again with the result.
  function progress(event) {
    const tool = state.tools.get(event.id);
    if (!tool) return;
    if (!tool.live) {
      tool.live = el('pre', { class: 'progress', 'aria-live': 'off' });
      tool.block.append(tool.live);
      tool.opened = !tool.block.open;
      tool.block.open = true;
    }
    tool.live.textContent = event.text;
  }

  function endTool(event) {
    const tool = state.tools.get(event.id);
    if (!tool) return;
    if (tool.live) {
      tool.live.remove();
      if (tool.opened && !tool.block.querySelector('.card')) tool.block.open = false;
    }
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

  // The page as a card sees it (cards.js): who this page is, the answers it gave, and how it
  // answers.
  function cardContext() {
    const session = state;
    return {
      client,
      mine: session.mine,
      interactive: () => $('interactive').checked,
      respond: (event, body) => api('POST', '/api/sessions/' + encodeURIComponent(session.id) + '/respond',
        Object.assign({ interactionId: String(event.interactionId), toolCallId: event.toolCallId, by: client }, body)),
    };
  }

  // A question a tool asks (interaction_request), as a card.
  function request(event) {
    const card = window.MarvinCards.make(event, cardContext());
    placeCard(card, event);
    if (!$('interactive').checked) return card.marvin.readOnly(true);
    // Never taken from someone typing a message: their next Enter would answer the card.
    const typing = document.activeElement === $('message') && $('message').value !== '';
    if (!typing) card.marvin.focus();
  }

  // Seed 001's question_prompt or seed 004's approval_required: sent after the
  // interaction_request of the same prompt (its card is made already), or alone in an older
  // Marvin's event log.
  function older(event, interactionType) {
    if (state.cards.has(String(event.interactionId))) return;
    request(Object.assign({ interactionType }, event));
  }

  // Where a card goes (seed 003's presentation): a question asked again (a reprompt, or one
  // left open by its tool: both say why in `error`) takes the place of its call's card before
  // it; "tool" puts it in its tool call's block, above the result to come; "questionnaire"
  // (or a call with no block here) makes it a block of its own in the conversation. A card is
  // found again by its prompt's interactionId.
  function placeCard(card, event) {
    const call = String(event.toolCallId);
    const before = event.error && [...document.querySelectorAll('#log .card')].reverse()
      .find((c) => c.dataset.call === call);
    const tool = state.tools.get(event.toolCallId);
    if (before) {
      before.replaceWith(card);
    } else if (event.presentation !== 'questionnaire' && tool) {
      tool.block.open = true;
      tool.block.append(card);
    } else {
      $('log').append(card);
    }
    state.cards.set(String(event.interactionId), card);
  }

  async function setInteractive() {
    const on = $('interactive').checked;
    state.cards.forEach((card) => card.marvin.readOnly(!on));
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

  // A question over (interaction_response): its card shows the completed view, read-only.
  function closeCard(event) {
    const id = String(event.interactionId !== undefined ? event.interactionId : event.id);
    const card = state.cards.get(id);
    if (card) card.marvin.complete(event);
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
    // Emptied as it goes, not when the gateway says it took it: a card the turn brings at once
    // finds nobody typing, and takes the focus. The view follows the turn again.
    const box = $('message');
    state.put = null;
    box.value = '';
    const { status, data } = await api('POST', '/api/sessions/' + state.id + '/messages', { content: text });
    if (status === 202 || (status === 200 && typeof data.coding === 'boolean')) {
      showError('');
    } else {
      if (box.value === '') box.value = text;
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
