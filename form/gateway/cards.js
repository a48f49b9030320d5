// The questions a session's tools ask, as cards in the gateway's page (seed 003's
// interaction_request): an approval with the scopes its tool offers, ask_user's questions, an
// input form of typed fields, a form open in a page of its own. A card answers through
// POST …/respond, shows a refused answer's errors where they belong, and once the question is
// over (answered here, elsewhere, or replayed after a reload) turns read-only with the
// completed view the gateway rendered. Plain DOM; every text is set as text, never as HTML.
(() => {
  'use strict';
  const OFF_HINT = 'Questions are not answered in this page: tick "Answer questions in this page" to answer.';
  const SCOPES = { once: 'Approve once', session: 'For this session', always: 'Always here',
    all_edits: 'All file edits this session' };
  // The actions a person takes; a question over without one (timed out, the turn cancelled)
  // was answered on no device.
  const ANSWERED = ['approve', 'deny', 'submit'];
  let made = 0;

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    Object.entries(props || {}).forEach(([key, value]) => {
      if (key === 'text') node.textContent = value;
      else if (key === 'class') node.className = value;
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else if (value === true) node.setAttribute(key, '');
      else if (value !== false && value !== undefined && value !== null) node.setAttribute(key, value);
    });
    children.flat().forEach((child) => {
      if (child !== null && child !== undefined && child !== false) node.append(child);
    });
    return node;
  }

  function say(node, text) {
    node.hidden = !text;
    node.textContent = text || '';
  }

  // ---- the card's frame -------------------------------------------------------------------

  // A card for `event`: its head (the tool, what is asked), the reprompt's error above the
  // fields, the fields, the actions, and where a refused answer is said. `ctx` is the page:
  // { client, mine, respond(event, body), interactive() }.
  function make(event, ctx) {
    const kind = event.interactionType;
    const build = { approval, questions, input, form }[kind] || form;
    const tag = kind === 'questions' || kind === 'input' ? 'form' : 'div';
    const card = el(tag, {
      class: 'card ' + kind + (event.presentation === 'questionnaire' ? ' questionnaire' : ''),
      'data-call': event.toolCallId, 'data-interaction': event.interactionId, 'data-type': kind,
    });
    if (tag === 'form') card.noValidate = true;
    const parts = {
      card, event, ctx,
      head: el('div', { class: 'card-head' }),
      reprompt: el('p', { class: 'error reprompt', role: 'alert', hidden: !event.error, text: event.error || '' }),
      body: el('div', { class: 'body' }),
      actions: el('div', { class: 'actions' }),
      problem: el('p', { class: 'error problem', role: 'alert', hidden: true }),
      // What enabling the card again leaves disabled (Submit until every question is answered).
      refresh: () => {},
      // Where the person starts.
      focus: () => null,
    };
    card.append(parts.head, parts.reprompt, parts.body, parts.actions, parts.problem);
    build(parts);
    card.marvin = {
      complete: (over) => complete(parts, over),
      readOnly: (off) => readOnly(parts, off),
      // An approval takes no focus: an Enter meant for something else would grant it.
      focus: () => {
        const first = parts.focus();
        if (first) first.focus({ preventScroll: true });
      },
    };
    return card;
  }

  // The card's head: who asks, and what, when there is a prompt (append would print a
  // missing one as "null").
  function heading(parts, chip, prompt) {
    parts.head.append(el('span', { class: 'chip', text: chip }));
    if (prompt) parts.head.append(el('p', { class: 'prompt', text: prompt }));
  }

  function controls(card) {
    return card.querySelectorAll('input, button, textarea, select');
  }

  function enable(parts, on) {
    controls(parts.card).forEach((node) => { node.disabled = !on; });
    if (on) parts.refresh();
  }

  // Sends the person's answer; resolves to the gateway's reply when it was not taken (the
  // card is usable again, unless the question is over elsewhere).
  async function send(parts, body) {
    const { card, event, ctx, problem } = parts;
    const id = String(event.interactionId);
    ctx.mine.add(id);
    enable(parts, false);
    say(problem, '');
    const { status, data } = await ctx.respond(event, body);
    if (status === 200) return null;
    ctx.mine.delete(id);
    if (card.classList.contains('done')) return null;
    if (status === 409) {
      say(problem, 'Already over: answered on another device, timed out or cancelled.');
      return null;
    }
    enable(parts, ctx.interactive());
    say(problem, data.error || 'The answer was not taken.');
    return data;
  }

  function button(text, props) {
    return el('button', Object.assign({ type: 'button', text }, props));
  }

  // ---- approvals --------------------------------------------------------------------------

  // The command or diff; a carriage return (a changed line end) shows as a dim ^M, as git diff
  // shows it through less: a browser would draw it as a space.
  function detail(text) {
    const parts = text.split('\r');
    return el('pre', {}, parts.flatMap((part, i) => (i ? [el('span', { class: 'cr', text: '^M' }), part] : [part])));
  }

  function approval(parts) {
    const { event, body, actions } = parts;
    heading(parts, event.tool || event.toolName, event.summary);
    if (event.detail) body.append(detail(event.detail));
    if (event.covers) {
      body.append(el('p', { class: 'description', text: 'A session or always grant covers ' + event.covers + '.' }));
    }
    const reason = el('input', { type: 'text', 'aria-label': 'What to do instead',
      placeholder: 'What to do instead (optional)' });
    const scopes = event.scopes || ['once', 'session', 'always'];
    actions.append(
      ...scopes.map((scope) => button(SCOPES[scope] || scope, { 'data-scope': scope,
        onclick: () => send(parts, { action: 'approve', approvalScope: scope }) })),
      reason,
      button('Deny', { class: 'secondary', 'data-deny': true,
        onclick: () => send(parts, { action: 'deny', reason: reason.value }) }));
  }

  // ---- ask_user's questions ---------------------------------------------------------------

  function questions(parts) {
    const { card, event, body, actions } = parts;
    heading(parts, event.toolName || 'question', '');
    const submit = el('button', { type: 'submit', text: 'Submit' });
    const fields = event.questions.map((question, q) => questionField(question, q, () => parts.refresh()));
    parts.refresh = () => {
      submit.disabled = !parts.ctx.interactive() || !fields.every((f) => f.value() !== '');
    };
    fields.forEach((f) => body.append(f.node));
    actions.append(submit, button('Cancel', { class: 'secondary', 'data-cancel': true,
      onclick: () => send(parts, { action: 'cancel' }) }));
    card.addEventListener('submit', (e) => {
      e.preventDefault();
      if (submit.disabled) return;
      const answers = {};
      fields.forEach((f) => { answers[f.question] = f.value(); });
      send(parts, { action: 'submit', answers });
    });
    fields.forEach((f) => f.restore(f.initial));
    parts.refresh();
    // Where the person goes on: the empty "Other" a reprompt left, else the first option.
    parts.focus = () => fields.map((f) => f.focusable()).find(Boolean) || card.querySelector('input');
  }

  function questionField(question, q, changed) {
    const multi = question.multiSelect;
    const name = 'q' + q + '-' + (made += 1);
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
    // A reprompt: what was entered is chosen again (seed 003's initialValues).
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
    const focusable = () => (initial && other.checked && otherText.value.trim() === '' ? otherText : null);
    return { node: set, question: question.question, value, restore, focusable, initial };
  }

  // ---- input forms ------------------------------------------------------------------------

  function input(parts) {
    const { card, event, body, actions } = parts;
    heading(parts, event.toolName || 'form', event.prompt);
    const uid = 'form-' + (made += 1);
    const fields = ((event.inputSchema || {}).fields || []).map((field) => inputField(field, uid));
    if (fields.some((f) => f.field.required)) {
      body.append(el('p', { class: 'required-note', text: '* needs an answer' }));
    }
    fields.forEach((f) => body.append(f.node));
    const cancel = () => send(parts, { action: 'cancel' });
    actions.append(el('button', { type: 'submit', text: 'Submit' }),
      button('Cancel', { class: 'secondary', 'data-cancel': true, onclick: cancel }));
    card.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && !card.classList.contains('done') && parts.ctx.interactive()) {
        e.preventDefault();
        cancel();
      }
    });
    card.addEventListener('submit', async (e) => {
      e.preventDefault();
      fields.forEach((f) => f.error(''));
      const given = {};
      const unread = fields.filter((f) => !f.read(given));
      if (unread.length) {
        say(parts.problem, 'Fix the fields marked below.');
        unread[0].focus();
        return;
      }
      const refused = await send(parts, { action: 'submit', input: given });
      if (refused && Array.isArray(refused.fields)) showErrors(parts, fields, refused.fields);
    });
    parts.focus = () => (fields[0] ? fields[0].focusable : null);
  }

  // A 400's field errors at their fields; one for no field of the form stays in the card's.
  function showErrors(parts, fields, errors) {
    const elsewhere = [];
    errors.forEach(({ field, message }) => {
      const found = fields.find((f) => f.field.id === field);
      if (found) found.error(message); else elsewhere.push(message);
    });
    say(parts.problem, elsewhere.length ? elsewhere.join(' ') : 'Fix the fields marked below.');
    const first = fields.find((f) => f.invalid());
    if (first) first.focus();
  }

  // One field of an input form: its label (marked when it needs an answer), description and
  // hint, the control its type takes, and where its error goes. `read(into)` adds its value
  // (text as typed, for the gateway to check and type) and says false when it cannot be read.
  function inputField(field, uid) {
    const id = uid + '-' + field.id;
    const start = field.initial !== undefined ? field.initial : field.default;
    const node = el('div', { class: 'field', 'data-field': field.id });
    const error = el('p', { class: 'field-error', id: id + '-error', hidden: true });
    const notes = [
      field.description ? el('p', { class: 'description', id: id + '-description', text: field.description }) : null,
      // The hint (what the field takes) on its own line, labelled: read after the
      // description, it does not run on from it.
      field.hint ? el('p', { class: 'field-hint', id: id + '-hint' },
        el('span', { class: 'hint-label', text: 'Allowed: ' }), field.hint) : null,
    ].filter(Boolean);
    const described = notes.map((n) => n.id).concat(error.id).join(' ');
    const mark = () => (field.required ? el('span', { class: 'required', 'aria-hidden': 'true', text: ' *' }) : null);
    const aria = { 'aria-describedby': described, 'aria-required': field.required ? 'true' : null };
    const shaped = control(field, id, start, aria, mark);
    node.append(shaped.node, ...notes, error);
    const focusable = shaped.focusable;
    return {
      field, node, focusable,
      focus: () => focusable.focus(),
      invalid: () => !error.hidden,
      error: (text) => {
        say(error, text);
        shaped.controls.forEach((c) => { if (text) c.setAttribute('aria-invalid', 'true'); else c.removeAttribute('aria-invalid'); });
      },
      read: (into) => {
        if (shaped.bad && shaped.bad()) {
          say(error, shaped.bad());
          focusable.setAttribute('aria-invalid', 'true');
          return false;
        }
        const value = shaped.value();
        if (value !== undefined) into[field.id] = value;
        return true;
      },
    };
  }

  function textOf(value) {
    if (value === undefined || value === null) return '';
    return Array.isArray(value) ? value.join(', ') : String(value);
  }

  // The control of one field by its type: { node, controls, focusable, value(), bad()? }.
  function control(field, id, start, aria, mark) {
    const typed = (node) => {
      const label = el('label', { for: id }, field.label, mark());
      return { node: el('div', {}, label, node), controls: [node], focusable: node };
    };
    switch (field.type) {
      case 'boolean': {
        const box = el('input', Object.assign({ type: 'checkbox', id }, aria));
        box.checked = start === true || start === 'true' || start === 'yes';
        const node = el('label', { class: 'option', for: id }, box, el('span', { text: field.label }), mark());
        return { node, controls: [box], focusable: box, value: () => box.checked };
      }
      case 'multiselect': {
        const chosen = Array.isArray(start) ? start.map(String) : [];
        const set = el('fieldset', { 'aria-describedby': aria['aria-describedby'] },
          el('legend', {}, field.label, mark()));
        const boxes = (field.options || []).map((option, n) => {
          const box = el('input', { type: 'checkbox', id: id + '-' + n, value: option.value });
          box.checked = chosen.includes(String(option.value));
          set.append(el('label', { class: 'option', for: box.id }, box, el('span', { text: option.label })));
          return box;
        });
        const value = () => {
          const values = boxes.filter((b) => b.checked).map((b) => b.value);
          return values.length ? values : undefined;
        };
        return { node: set, controls: boxes, focusable: boxes[0] || set, value };
      }
      case 'select': {
        const select = el('select', Object.assign({ id }, aria));
        if (start === undefined || start === null || !field.required) {
          select.append(el('option', { value: '', text: field.required ? 'Choose…' : '—' }));
        }
        (field.options || []).forEach((o) => select.append(el('option', { value: o.value, text: o.label })));
        if (start !== undefined && start !== null) select.value = String(start);
        return Object.assign(typed(select), { value: () => select.value || undefined });
      }
      case 'number':
      case 'integer': {
        const box = el('input', Object.assign({ type: 'number', id, min: field.minimum, max: field.maximum,
          step: field.type === 'integer' ? '1' : 'any', inputmode: field.type === 'integer' ? 'numeric' : 'decimal' }, aria));
        box.value = textOf(start);
        const bad = () => (box.validity.badInput ? 'Type a number.' : '');
        return Object.assign(typed(box), { value: () => box.value.trim() || undefined, bad });
      }
      case 'textarea': {
        const area = el('textarea', Object.assign({ id, rows: 3, maxlength: field.maxLength }, aria));
        area.value = textOf(start);
        return Object.assign(typed(area), { value: () => (area.value.trim() ? area.value : undefined) });
      }
      default: {
        const kinds = { email: 'email', uri: 'url', date: 'date' };
        const box = el('input', Object.assign({ type: kinds[field.format] || 'text', id,
          maxlength: field.maxLength }, aria));
        box.value = textOf(start);
        return Object.assign(typed(box), { value: () => (box.value.trim() ? box.value : undefined) });
      }
    }
  }

  // ---- a form in a page of its own --------------------------------------------------------

  function form(parts) {
    const { event, body } = parts;
    heading(parts, 'form', event.title || 'A form is open');
    const url = String(event.url || '');
    const link = /^https?:\/\//.test(url)
      ? el('a', { href: url, target: '_blank', rel: 'noopener noreferrer', text: url.split('?')[0] })
      : null;
    body.append(el('p', { class: 'description' }, 'It is answered in a page of its own', link ? ': ' : '.', link));
  }

  // ---- read-only: interactive mode off, or the question over ------------------------------

  function readOnly(parts, off) {
    const { card } = parts;
    if (card.classList.contains('done')) return;
    enable(parts, !off);
    const hint = card.querySelector('.hint');
    if (off && !hint) card.append(el('p', { class: 'hint', text: OFF_HINT }));
    if (!off && hint) hint.remove();
  }

  // The question is over: the fields give way to the completed view's lines (the same on
  // every surface), and whether it was answered on another device.
  function complete(parts, over) {
    const { card, ctx } = parts;
    if (card.classList.contains('done')) return;
    card.classList.add('done');
    card.querySelectorAll('.body, .actions, .reprompt, .problem, .hint').forEach((n) => n.remove());
    const lines = Array.isArray(over.completed) && over.completed.length ? over.completed
      : [capital(over.outcome || over.action || 'over')];
    card.append(el('ul', { class: 'completed' }, lines.map((line) => completedLine(parts.event, line))));
    const id = String(over.interactionId !== undefined ? over.interactionId : over.id);
    const mine = ctx.mine.has(id) || (over.by !== undefined && over.by === ctx.client);
    const answered = over.action ? ANSWERED.includes(over.action) : /^(answered|approved|denied)\b/.test(over.outcome || '');
    if (!mine && (over.by !== undefined || answered)) {
      card.append(el('p', { class: 'by', text: 'Answered on another device.' }));
    }
  }

  // One line of the completed view. ask_user's "Question: answer" is shown as the terminal
  // shows an answered question: the question under its header, then the answer on a line of
  // its own ("✓ Header: answer"). Any other line is shown as it is.
  function completedLine(event, line) {
    const asked = (event.questions || []).find((q) => line.startsWith(q.question + ': '));
    if (!asked) return el('li', { text: line });
    const answer = line.slice(asked.question.length + 2);
    return el('li', { class: 'answered' },
      el('p', { class: 'question' }, el('span', { class: 'chip', text: asked.header }), ' ', asked.question),
      el('p', { class: 'answer', text: '✓ ' + asked.header + ': ' + answer }));
  }

  function capital(text) {
    return text.charAt(0).toUpperCase() + text.slice(1);
  }

  window.MarvinCards = { make, el };
})();
