// What the interview shows with a question: content blocks (code with line numbers and
// highlights, diffs, Markdown) and media (pictures, tables, charts drawn here as SVG, Mermaid
// as its source, HTML with only harmless elements kept). Everything is built as DOM nodes,
// never from HTML strings, and nothing is loaded from elsewhere.
"use strict";

window.MarvinBlocks = (function () {
  const SVG = "http://www.w3.org/2000/svg";

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }

  function svg(tag, attributes, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // ---- content blocks --------------------------------------------------------------------

  function content(block) {
    const box = el("div", { class: "content" });
    const head = [block.title, block.file && block.file + (block.lines ? ":" + block.lines.join("-") : "")]
      .filter(Boolean).join(" · ");
    if (head) box.append(el("div", { class: "content-head", text: head }));
    const markdown = block.lang === "md" || block.lang === "markdown";
    if (markdown && !block.showSource) box.append(renderMarkdown(block.source));
    else box.append(code(block));
    return box;
  }

  function code(block) {
    const first = block.lines ? block.lines[0] : 1;
    const marks = new Set(block.highlights || []);
    const diff = block.lang === "diff" || block.lang === "patch";
    const pre = el("pre", { class: "code", "data-lang": block.lang || "" });
    block.source.split("\n").forEach((text, i) => {
      let kind = "";
      if (diff && /^(\+\+\+|---)/.test(text)) kind = " file";
      else if (diff && text.startsWith("+")) kind = " add";
      else if (diff && text.startsWith("-")) kind = " del";
      else if (diff && text.startsWith("@@")) kind = " hunk";
      const line = el("span", { class: "line" + kind + (marks.has(i + 1) ? " hl" : "") },
        el("span", { class: "n", text: String(first + i), "aria-hidden": "true" }),
        el("span", { class: "t", text: text || " " }));
      pre.append(line);
    });
    return pre;
  }

  // A small Markdown: headings, paragraphs, lists, quotes, fenced code, rules, and inline
  // code, bold, italics and links (shown, never followed without a click).
  function renderMarkdown(source) {
    const box = el("div", { class: "markdown" });
    const lines = source.replace(/\r/g, "").split("\n");
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      if (/^\s*$/.test(line)) { i += 1; continue; }
      const fence = line.match(/^\s*(```|~~~)/);
      if (fence) {
        const body = [];
        i += 1;
        while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
        i += 1;
        box.append(code({ source: body.join("\n") }));
        continue;
      }
      const heading = line.match(/^(#{1,6})\s+(.*)$/);
      if (heading) {
        box.append(inline(el("h" + Math.min(6, heading[1].length + 2)), heading[2]));
        i += 1;
        continue;
      }
      if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) { box.append(el("hr")); i += 1; continue; }
      const item = /^\s*([-*+]|\d+[.)])\s+/;
      if (item.test(line)) {
        const ordered = /^\s*\d/.test(line);
        const list = el(ordered ? "ol" : "ul");
        while (i < lines.length && item.test(lines[i])) {
          list.append(inline(el("li"), lines[i].replace(item, "")));
          i += 1;
        }
        box.append(list);
        continue;
      }
      const block = [];
      const quote = line.startsWith(">");
      while (i < lines.length && lines[i].trim() && !item.test(lines[i]) && !/^(#|```|~~~)/.test(lines[i])
        && lines[i].startsWith(">") === quote) {
        block.push(lines[i].replace(/^>\s?/, ""));
        i += 1;
      }
      box.append(quote ? el("blockquote", {}, inline(el("p"), block.join(" ")))
        : inline(el("p"), block.join(" ")));
    }
    return box;
  }

  function inline(node, text) {
    const pattern = /(`[^`]+`)|(\*\*[^*]+\*\*)|(\*[^*]+\*|_[^_]+_)|(\[[^\]]+\]\([^)\s]+\))/;
    let rest = text;
    while (rest) {
      const match = rest.match(pattern);
      if (!match) { node.append(rest); break; }
      node.append(rest.slice(0, match.index));
      const token = match[0];
      if (match[1]) node.append(el("code", { text: token.slice(1, -1) }));
      else if (match[2]) node.append(el("strong", { text: token.slice(2, -2) }));
      else if (match[3]) node.append(el("em", { text: token.slice(1, -1) }));
      else {
        const [, label, href] = token.match(/^\[([^\]]+)\]\(([^)\s]+)\)$/);
        node.append(link(label, href));
      }
      rest = rest.slice(match.index + token.length);
    }
    return node;
  }

  function link(label, href) {
    if (!/^https?:\/\//i.test(href)) return document.createTextNode(label + " (" + href + ")");
    return el("a", { href, target: "_blank", rel: "noopener noreferrer", text: label });
  }

  // ---- media -----------------------------------------------------------------------------

  // One media item of question `q` (its position in the form), item `m`; `token` to ask the
  // form's server for a picture on this machine.
  function media(item, q, m, token) {
    const figure = el("figure", { class: "media " + item.type + " " + (item.position || "above") });
    if (item.type === "image") figure.append(image(item, q, m, token));
    else if (item.type === "table") figure.append(table(item.table));
    else if (item.type === "chart") figure.append(chart(item.chart));
    else if (item.type === "mermaid") {
      figure.append(el("p", { class: "media-note", text: "Mermaid diagram, shown as its source:" }),
        code({ source: item.mermaid, lang: "mermaid" }));
    } else if (item.type === "html") figure.append(safeHtml(item.html));
    if (item.caption) figure.append(el("figcaption", { text: item.caption }));
    return figure;
  }

  function image(item, q, m, token) {
    const alt = item.alt || item.caption || "";
    if (/^https?:\/\//i.test(item.src)) {
      return el("p", { class: "media-note" }, "Picture at ", link(item.src, item.src),
        " (not loaded: the form loads nothing from elsewhere).");
    }
    const src = item.src.startsWith("data:") ? item.src
      : "/media/" + q + "/" + m + "?session=" + encodeURIComponent(token);
    return el("img", { src, alt, loading: "lazy" });
  }

  function table(data) {
    const marks = new Set(data.highlights || []);
    const head = el("tr", {}, ...data.headers.map((h) => el("th", { scope: "col", text: h })));
    const body = el("tbody", {}, ...data.rows.map((row, r) =>
      el("tr", { class: marks.has(r) ? "hl" : null }, ...row.map((cell) => el("td", { text: cell })))));
    return el("div", { class: "table-wrap" }, el("table", {}, el("thead", {}, head), body));
  }

  // ---- charts ----------------------------------------------------------------------------

  const W = 640;
  const H = 300;
  const PAD = { left: 52, right: 16, top: 16, bottom: 44 };

  function chart(data) {
    const box = el("div", { class: "chart" });
    const kind = data.type;
    const drawn = kind === "pie" || kind === "doughnut" ? pie(data, kind === "doughnut")
      : kind === "line" || kind === "scatter" ? lines(data, kind === "scatter")
        : bars(data);
    box.append(drawn);
    if (!["bar", "line", "pie", "doughnut", "scatter"].includes(kind)) {
      box.append(el("p", { class: "media-note", text: "A " + kind + " chart, drawn as bars." }));
    }
    if (kind !== "pie" && kind !== "doughnut" && data.datasets.length > 1) box.append(legend(data.datasets.map((d) => d.label)));
    box.append(el("details", { class: "chart-data" }, el("summary", { text: "The numbers" }), dataTable(data)));
    return box;
  }

  function dataTable(data) {
    const labels = categories(data);
    return table({
      headers: [""].concat(data.datasets.map((d) => d.label)),
      rows: labels.map((label, i) => [label].concat(data.datasets.map((d) => format(d.data[i])))),
    });
  }

  function categories(data) {
    const count = Math.max(0, ...data.datasets.map((d) => d.data.length));
    return Array.from({ length: Math.max(count, data.labels.length) }, (_, i) => data.labels[i] ?? String(i + 1));
  }

  function format(value) {
    if (value === null || value === undefined) return "";
    return Number.isInteger(value) ? String(value) : String(Math.round(value * 1000) / 1000);
  }

  function frame(label) {
    return svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": label, class: "chart-svg" });
  }

  // The value axis: a range that includes 0, with about five round steps.
  function scale(data) {
    const values = data.datasets.flatMap((d) => d.data).filter((v) => v !== null && v !== undefined);
    let low = Math.min(0, ...values);
    let high = Math.max(0, ...values);
    if (low === high) high = low + 1;
    const raw = (high - low) / 5;
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 2.5, 5, 10].map((f) => f * power).find((s) => s >= raw);
    low = Math.floor(low / step) * step;
    high = Math.ceil(high / step) * step;
    const y = (v) => PAD.top + (H - PAD.top - PAD.bottom) * (1 - (v - low) / (high - low));
    return { low, high, step, y };
  }

  function axes(root, s, labels, x) {
    for (let v = s.low; v <= s.high + s.step / 2; v += s.step) {
      root.append(svg("line", { x1: PAD.left, x2: W - PAD.right, y1: s.y(v), y2: s.y(v), class: v === 0 ? "axis" : "grid" }));
      root.append(svg("text", { x: PAD.left - 6, y: s.y(v) + 4, "text-anchor": "end", class: "tick" }, format(v)));
    }
    labels.forEach((label, i) => {
      root.append(svg("text", { x: x(i), y: H - PAD.bottom + 18, "text-anchor": "middle", class: "tick" }, label));
    });
  }

  function bars(data) {
    const root = frame("Bar chart");
    const s = scale(data);
    const labels = categories(data);
    const band = (W - PAD.left - PAD.right) / Math.max(1, labels.length);
    const sets = Math.max(1, data.datasets.length);
    const width = (band * 0.8) / sets;
    const x = (i) => PAD.left + band * i + band / 2;
    axes(root, s, labels, x);
    data.datasets.forEach((set, d) => {
      set.data.forEach((v, i) => {
        if (v === null || v === undefined) return;
        const top = Math.min(s.y(v), s.y(0));
        const bar = svg("rect", { x: x(i) - band * 0.4 + width * d, y: top, width: Math.max(1, width - 2),
          height: Math.max(1, Math.abs(s.y(v) - s.y(0))), class: "s" + (d % 6) });
        bar.append(svg("title", {}, set.label + ", " + labels[i] + ": " + format(v)));
        root.append(bar);
      });
    });
    return root;
  }

  function lines(data, pointsOnly) {
    const root = frame(pointsOnly ? "Scatter chart" : "Line chart");
    const s = scale(data);
    const labels = categories(data);
    const step = (W - PAD.left - PAD.right) / Math.max(1, labels.length - 1);
    const x = (i) => labels.length === 1 ? (W + PAD.left - PAD.right) / 2 : PAD.left + step * i;
    axes(root, s, labels, x);
    data.datasets.forEach((set, d) => {
      let path = "";
      set.data.forEach((v, i) => {
        if (v === null || v === undefined) { path += " "; return; }
        path += (path.endsWith(" ") || !path ? " M" : " L") + x(i).toFixed(1) + " " + s.y(v).toFixed(1);
        const dot = svg("circle", { cx: x(i), cy: s.y(v), r: 3.5, class: "s" + (d % 6) });
        dot.append(svg("title", {}, set.label + ", " + labels[i] + ": " + format(v)));
        root.append(dot);
      });
      if (!pointsOnly && path.trim()) root.append(svg("path", { d: path.trim(), class: "stroke s" + (d % 6) }));
    });
    return root;
  }

  function pie(data, hole) {
    const root = frame(hole ? "Doughnut chart" : "Pie chart");
    const values = (data.datasets[0] ? data.datasets[0].data : []).map((v) => Math.max(0, v || 0));
    const total = values.reduce((a, b) => a + b, 0);
    const labels = categories(data);
    const [cx, cy, r] = [H / 2, H / 2, H / 2 - 12];
    let angle = -Math.PI / 2;
    values.forEach((v, i) => {
      if (!total || !v) return;
      const sweep = (v / total) * Math.PI * 2;
      const end = angle + Math.min(sweep, Math.PI * 2 - 0.0001);
      const point = (a) => (cx + r * Math.cos(a)).toFixed(2) + " " + (cy + r * Math.sin(a)).toFixed(2);
      const d = "M " + cx + " " + cy + " L " + point(angle) + " A " + r + " " + r + " 0 " + (sweep > Math.PI ? 1 : 0) + " 1 " + point(end) + " Z";
      const slice = svg("path", { d, class: "s" + (i % 6) });
      slice.append(svg("title", {}, labels[i] + ": " + format(v)));
      root.append(slice);
      angle = end;
    });
    if (hole) root.append(svg("circle", { cx, cy, r: r * 0.55, class: "hole" }));
    const key = labels.map((label, i) => label + " (" + format(values[i]) + ")");
    key.forEach((text, i) => {
      root.append(svg("rect", { x: H + 20, y: 30 + i * 24, width: 14, height: 14, class: "s" + (i % 6) }));
      root.append(svg("text", { x: H + 42, y: 42 + i * 24, class: "tick" }, text));
    });
    return root;
  }

  function legend(names) {
    return el("p", { class: "legend" }, ...names.map((name, i) =>
      el("span", {}, el("span", { class: "swatch s" + (i % 6), "aria-hidden": "true" }), name)));
  }

  // ---- HTML ------------------------------------------------------------------------------

  const KEEP = new Set(["p", "br", "b", "strong", "i", "em", "u", "s", "code", "pre", "kbd", "small",
    "sub", "sup", "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "hr",
    "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "span", "div", "a", "dl", "dt", "dd"]);
  const DROP = new Set(["script", "style", "iframe", "object", "embed", "form", "input", "button",
    "textarea", "select", "template", "noscript", "link", "meta", "svg", "math", "img", "video", "audio"]);

  // The HTML's text and harmless structure: no scripts, styles, forms, frames or attributes
  // (links keep an http(s) href).
  function safeHtml(html) {
    const parsed = new DOMParser().parseFromString(html, "text/html");
    const box = el("div", { class: "html" });
    copy(parsed.body, box);
    return box;
  }

  function copy(from, to) {
    for (const node of from.childNodes) {
      if (node.nodeType === Node.TEXT_NODE) { to.append(node.textContent); continue; }
      if (node.nodeType !== Node.ELEMENT_NODE) continue;
      const tag = node.tagName.toLowerCase();
      if (DROP.has(tag)) continue;
      if (!KEEP.has(tag)) { copy(node, to); continue; }
      const href = tag === "a" ? node.getAttribute("href") || "" : "";
      const made = tag === "a" && /^https?:\/\//i.test(href)
        ? el("a", { href, target: "_blank", rel: "noopener noreferrer" }) : el(tag === "a" ? "span" : tag);
      copy(node, made);
      to.append(made);
    }
  }

  return { content, media, el };
})();
