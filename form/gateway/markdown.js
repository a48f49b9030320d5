// The model's Markdown made into page elements, as the terminal renders it (src/ui/markdown/):
// headings, paragraphs, lists, quotes, rules, fenced code and tables, with **bold**, *italic*,
// `code`, ~~struck~~ and links. Everything the model wrote is set as text, never as HTML, so no
// markup it sends becomes markup here; a link is a link only to an http or https address (and
// opens without handing this page over), any other is shown as its text and address.
(() => {
  'use strict';

  const FENCE = /^ {0,3}(`{3,}|~{3,})\s*(\S*)/;
  const HEADING = /^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$/;
  const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
  const QUOTE = /^ {0,3}> ?/;
  const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])(?:\s+(.*))?$/;
  const DELIMITER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
  const SAFE_URL = /^https?:\/\/[^\s]+$/i;

  function el(tag, className) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    return node;
  }

  // ---- blocks -----------------------------------------------------------------------------

  function render(source) {
    const root = document.createDocumentFragment();
    blocks(String(source).replace(/\r\n?/g, '\n').split('\n'), root);
    return root;
  }

  // Appends the blocks `lines` hold to `parent`.
  function blocks(lines, parent) {
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      if (line.trim() === '') { i += 1; continue; }
      const taken = fence(lines, i, parent) || heading(lines, i, parent) || rule(lines, i, parent) ||
        table(lines, i, parent) || quote(lines, i, parent) || list(lines, i, parent) ||
        paragraph(lines, i, parent);
      i = taken;
    }
  }

  // Each block reader returns the index after the lines it took, or 0 when `lines[i]` is not its
  // kind.
  function fence(lines, i, parent) {
    const open = FENCE.exec(lines[i]);
    if (!open || (open[1][0] === '`' && open[2].includes('`'))) return 0;
    const mark = open[1];
    const code = [];
    let j = i + 1;
    // An unclosed fence (the answer still streaming) runs to the end.
    while (j < lines.length && !closes(lines[j], mark)) code.push(lines[j++]);
    const pre = el('pre', 'code');
    const inner = el('code');
    if (open[2]) inner.dataset.lang = open[2];
    inner.textContent = code.join('\n');
    pre.append(inner);
    parent.append(pre);
    return j + 1;
  }

  function closes(line, mark) {
    const trimmed = line.trim();
    return trimmed.length >= mark.length && trimmed === mark[0].repeat(trimmed.length);
  }

  function heading(lines, i, parent) {
    const found = HEADING.exec(lines[i]);
    if (!found) return 0;
    const node = el('h' + Math.min(found[1].length + 2, 6), 'md-heading');
    inline(found[2] || '', node);
    parent.append(node);
    return i + 1;
  }

  function rule(lines, i, parent) {
    if (!RULE.test(lines[i])) return 0;
    parent.append(el('hr'));
    return i + 1;
  }

  function table(lines, i, parent) {
    if (!lines[i].includes('|') || i + 1 >= lines.length || !DELIMITER.test(lines[i + 1]) ||
      !lines[i + 1].includes('-')) return 0;
    const head = cells(lines[i]);
    const aligns = cells(lines[i + 1]).map((c) => {
      const left = c.startsWith(':');
      const right = c.endsWith(':');
      return left && right ? 'center' : right ? 'right' : left ? 'left' : '';
    });
    const node = el('table');
    const row = (texts, tag) => {
      const tr = el('tr');
      head.forEach((_, n) => {
        const cell = el(tag, aligns[n] ? 'align-' + aligns[n] : '');
        inline(texts[n] || '', cell);
        tr.append(cell);
      });
      return tr;
    };
    const thead = el('thead');
    thead.append(row(head, 'th'));
    const tbody = el('tbody');
    let j = i + 2;
    while (j < lines.length && lines[j].trim() !== '' && lines[j].includes('|')) {
      tbody.append(row(cells(lines[j]), 'td'));
      j += 1;
    }
    node.append(thead, tbody);
    // A wide table scrolls in its own box, never the page.
    const box = el('div', 'table');
    box.append(node);
    parent.append(box);
    return j;
  }

  // A row's cells: split at each `|` not escaped, the outer pipes dropped, `\|` made `|`.
  function cells(row) {
    let text = row.trim();
    if (text.startsWith('|')) text = text.slice(1);
    if (text.endsWith('|') && !text.endsWith('\\|')) text = text.slice(0, -1);
    const out = [];
    let cell = '';
    for (let k = 0; k < text.length; k += 1) {
      if (text[k] === '\\' && text[k + 1] === '|') { cell += '|'; k += 1; } else if (text[k] === '|') { out.push(cell.trim()); cell = ''; } else cell += text[k];
    }
    out.push(cell.trim());
    return out;
  }

  function quote(lines, i, parent) {
    if (!QUOTE.test(lines[i])) return 0;
    const inner = [];
    let j = i;
    while (j < lines.length && QUOTE.test(lines[j])) inner.push(lines[j++].replace(QUOTE, ''));
    const node = el('blockquote');
    blocks(inner, node);
    parent.append(node);
    return j;
  }

  // A list: its items at one indentation, each with the lines indented under it (nested lists,
  // code) rendered as blocks of their own.
  function list(lines, i, parent) {
    const first = ITEM.exec(lines[i]);
    if (!first) return 0;
    const indent = first[1].length;
    const ordered = /\d/.test(first[2]);
    const node = el(ordered ? 'ol' : 'ul');
    if (ordered && parseInt(first[2], 10) !== 1) node.setAttribute('start', String(parseInt(first[2], 10)));
    let j = i;
    while (j < lines.length) {
      const item = ITEM.exec(lines[j]);
      if (!item || item[1].length !== indent || /\d/.test(item[2]) !== ordered) break;
      const body = [item[3] || ''];
      j += 1;
      while (j < lines.length) {
        const next = lines[j];
        const nested = next.length - next.trimStart().length > indent;
        if (next.trim() === '' ? !(j + 1 < lines.length && leading(lines[j + 1]) > indent) : !nested) break;
        body.push(next.slice(Math.min(leading(next), indent + 2)));
        j += 1;
      }
      const li = el('li');
      blocks(body, li);
      // A tight item's one paragraph is its text.
      if (li.childNodes.length === 1 && li.firstChild.tagName === 'P') li.replaceChildren(...li.firstChild.childNodes);
      else if (li.firstChild && li.firstChild.tagName === 'P') li.firstChild.classList.add('tight');
      node.append(li);
    }
    parent.append(node);
    return j;
  }

  function leading(line) {
    return line.length - line.trimStart().length;
  }

  // Lines up to a blank one or another block, their line breaks kept (as the terminal shows them).
  function paragraph(lines, i, parent) {
    const node = el('p');
    let j = i;
    while (j < lines.length && lines[j].trim() !== '' &&
      (j === i || !(FENCE.test(lines[j]) || HEADING.test(lines[j]) || QUOTE.test(lines[j]) ||
        ITEM.test(lines[j]) || RULE.test(lines[j])))) {
      if (j > i) node.append(el('br'));
      inline(lines[j].trim(), node);
      j += 1;
    }
    parent.append(node);
    return j;
  }

  // ---- inline -----------------------------------------------------------------------------

  // Appends `text`'s inline Markdown to `parent`: text nodes and elements, never parsed HTML.
  function inline(text, parent) {
    let plain = '';
    const flush = () => { if (plain) parent.append(document.createTextNode(plain)); plain = ''; };
    let i = 0;
    while (i < text.length) {
      const span = escape(text, i) || code(text, i) || link(text, i) || autolink(text, i) ||
        emphasis(text, i);
      if (!span) { plain += text[i]; i += 1; continue; }
      if (typeof span.node === 'string') plain += span.node;
      else { flush(); parent.append(span.node); }
      i = span.end;
    }
    flush();
  }

  function escape(text, i) {
    if (text[i] !== '\\' || !/[!-/:-@[-`{-~]/.test(text[i + 1] || '')) return null;
    return { node: text[i + 1], end: i + 2 };
  }

  function code(text, i) {
    if (text[i] !== '`') return null;
    let run = 1;
    while (text[i + run] === '`') run += 1;
    const mark = '`'.repeat(run);
    const close = text.indexOf(mark, i + run);
    if (close < 0) return { node: mark, end: i + run };
    const node = el('code');
    let inner = text.slice(i + run, close);
    if (/^ .* $/.test(inner) && inner.trim()) inner = inner.slice(1, -1);
    node.textContent = inner;
    return { node, end: close + run };
  }

  // `[words](url)` and `![alt](url)`: a link to an http(s) address, else the words and the
  // address as text.
  function link(text, i) {
    const image = text[i] === '!' && text[i + 1] === '[';
    const open = image ? i + 1 : i;
    if (text[open] !== '[') return null;
    const close = text.indexOf('](', open + 1);
    if (close < 0) return null;
    let depth = 0;
    let end = close + 2;
    for (; end < text.length; end += 1) {
      if (text[end] === '(') depth += 1;
      else if (text[end] === ')') { if (depth === 0) break; depth -= 1; }
    }
    if (end >= text.length) return null;
    const words = text.slice(open + 1, close);
    const url = text.slice(close + 2, end).trim().replace(/^<(.*)>$/, '$1').split(/\s+/)[0] || '';
    return { node: anchor(words, url), end: end + 1 };
  }

  function autolink(text, i) {
    if (text[i] !== '<') return null;
    const close = text.indexOf('>', i + 1);
    const url = close < 0 ? '' : text.slice(i + 1, close);
    if (!SAFE_URL.test(url)) return null;
    return { node: anchor('', url), end: close + 1 };
  }

  function anchor(words, url) {
    if (!SAFE_URL.test(url)) {
      const span = el('span', 'inert-link');
      if (words && words !== url) {
        inline(words, span);
        span.append(document.createTextNode(' (' + url + ')'));
      } else span.textContent = url;
      return span;
    }
    const a = el('a');
    a.href = url;
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
    if (words) inline(words, a); else a.textContent = url;
    return a;
  }

  // **bold**, __bold__, *italic*, _italic_ (not inside a word), ~~struck~~.
  function emphasis(text, i) {
    const marks = [['**', 'strong'], ['__', 'strong'], ['~~', 'del'], ['*', 'em'], ['_', 'em']];
    for (const [mark, tag] of marks) {
      if (!text.startsWith(mark, i)) continue;
      const after = text[i + mark.length];
      if (!after || /\s/.test(after)) return null;
      if (mark[0] === '_' && /[\p{L}\p{N}]/u.test(text[i - 1] || '')) return null;
      let close = text.indexOf(mark, i + mark.length + 1);
      while (close > 0 && (/\s/.test(text[close - 1]) ||
        (mark.length === 1 && text[close + 1] === mark) ||
        (mark[0] === '_' && /[\p{L}\p{N}]/u.test(text[close + mark.length] || '')))) {
        close = text.indexOf(mark, close + (text[close + 1] === mark ? 2 : 1));
      }
      if (close < 0) return null;
      const node = el(tag);
      inline(text.slice(i + mark.length, close), node);
      return { node, end: close + mark.length };
    }
    return null;
  }

  window.MarvinMarkdown = { render };
})();
