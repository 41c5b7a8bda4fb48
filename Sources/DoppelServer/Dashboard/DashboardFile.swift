#if Server
  /// The files of the stub server's dashboard (`GET /__doppel/` from a browser): a page, its script
  /// (`DashboardFile+Script.swift`) and its stylesheet, held in the binary so that the dashboard
  /// works offline and loads nothing from elsewhere.
  ///
  /// They hold no data: the script reads everything through the admin API, with the token when the
  /// server has one, and writes what it reads into the page as text (`textContent`), never as HTML.
  enum DashboardFile: Equatable, Sendable {
    case page
    case script
    case stylesheet
    /// The page's icon: without one, a browser asks the stub server for `/favicon.ico`, which no
    /// stub answers and the journal would show.
    case icon

    /// The page, with `prefix` (the admin API's path prefix, `/__doppel/`) in its links.
    static func pageText(prefix: String) -> String {
      pageTemplate.replacingOccurrences(of: "{{prefix}}", with: escapedForHTML(prefix))
    }

    /// `text` safe in HTML text and in a quoted attribute.
    static func escapedForHTML(_ text: String) -> String {
      var escaped = ""
      for character in text {
        switch character {
        case "&": escaped += "&amp;"
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "\"": escaped += "&quot;"
        case "'": escaped += "&#39;"
        default: escaped.append(character)
        }
      }
      return escaped
    }

    private static let pageTemplate = #"""
      <!doctype html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <meta name="referrer" content="no-referrer">
      <title>Doppel dashboard</title>
      <link rel="icon" href="{{prefix}}dashboard.svg" type="image/svg+xml">
      <link rel="stylesheet" href="{{prefix}}dashboard.css">
      <script src="{{prefix}}dashboard.js" defer></script>
      </head>
      <body data-api="{{prefix}}">
      <header>
        <h1>Doppel <span class="subtitle">stub server</span></h1>
        <span id="live" class="badge">connecting…</span>
        <nav>
          <a id="har" href="{{prefix}}requests.har" download="doppel-journal.har">Download the journal (HAR)</a>
          <button id="clear-journal" type="button">Clear the journal</button>
        </nav>
      </header>
      <div id="token-panel" class="panel" hidden>
        <label for="token">This server asks for its admin token (<code>doppel serve --admin-token</code>).
          The page keeps it in memory only: reloading the page forgets it.</label>
        <input id="token" type="password" autocomplete="off" spellcheck="false">
        <button id="token-use" type="button">Use the token</button>
      </div>
      <p id="message" role="status" hidden></p>
      <main>
        <section id="journal-section">
          <h2>Requests <span id="journal-count" class="count"></span></h2>
          <form id="filters" class="filters" role="search" autocomplete="off">
            <select id="filter-method" aria-label="Method">
              <option value="">any method</option>
              <option>GET</option><option>POST</option><option>PUT</option><option>PATCH</option>
              <option>DELETE</option><option>HEAD</option><option>OPTIONS</option>
            </select>
            <select id="filter-status" aria-label="Status">
              <option value="">any status</option>
              <option>1xx</option><option>2xx</option><option>3xx</option><option>4xx</option><option>5xx</option>
            </select>
            <select id="filter-matched" aria-label="Matched or not">
              <option value="">matched or not</option>
              <option value="true">matched</option>
              <option value="false">unmatched</option>
            </select>
            <input id="filter-path" type="text" placeholder="path: /users/{id}, /images/**" aria-label="Path" spellcheck="false">
            <input id="filter-text" type="search" placeholder="text in the request or report" aria-label="Text" spellcheck="false">
            <label>from <input id="filter-from" type="datetime-local" step="1"></label>
            <label>to <input id="filter-to" type="datetime-local" step="1"></label>
            <button id="filter-clear" type="button">Clear the filter</button>
          </form>
          <p id="journal-empty" class="empty">No requests yet. Requests to the stub server appear here as they arrive.</p>
          <ol id="journal"></ol>
          <button id="journal-more" type="button" hidden>Show older</button>
        </section>
        <aside>
          <section id="scenario-section">
            <h2>Scenario</h2>
            <div id="scenarios" class="buttons"></div>
          </section>
          <section id="state-section">
            <h2>State</h2>
            <table id="states"><tbody></tbody></table>
            <button id="reset-states" type="button">Reset every state</button>
          </section>
          <section id="stub-section">
            <h2>Stubs <span id="stub-count" class="count"></span></h2>
            <ol id="stubs"></ol>
          </section>
        </aside>
      </main>
      <noscript><p>The dashboard needs JavaScript. The admin API answers JSON under {{prefix}}.</p></noscript>
      </body>
      </html>

      """#

    /// The icon: two overlapping squares, a thing and its double.
    static let iconText = #"""
      <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
      <rect x="3" y="3" width="18" height="18" rx="4" fill="#0969da"/>
      <rect x="11" y="11" width="18" height="18" rx="4" fill="none" stroke="#0969da" stroke-width="3"/>
      </svg>

      """#

    /// The stylesheet: light and dark, readable, no external fonts.
    static let stylesheetText = #"""
      :root { color-scheme: light dark; --fg: #1d1d1f; --bg: #fafafa; --muted: #6e6e73; --line: #d2d2d7;
        --card: #ffffff; --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; --accent: #0969da; }
      @media (prefers-color-scheme: dark) {
        :root { --fg: #e6edf3; --bg: #0d1117; --muted: #8b949e; --line: #30363d; --card: #161b22;
          --ok: #3fb950; --warn: #d29922; --bad: #f85149; --accent: #58a6ff; }
      }
      [hidden] { display: none !important; }
      * { box-sizing: border-box; }
      body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg);
        background: var(--bg); }
      code, pre, .url, .method, .location, .request { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
      header { display: flex; flex-wrap: wrap; align-items: center; gap: 12px; padding: 12px 20px;
        border-bottom: 1px solid var(--line); background: var(--card); }
      h1 { font-size: 18px; margin: 0; }
      h1 .subtitle { font-weight: normal; color: var(--muted); }
      h2 { font-size: 15px; margin: 0 0 8px; }
      nav { margin-left: auto; display: flex; gap: 12px; align-items: center; }
      a { color: var(--accent); }
      button { font: inherit; padding: 3px 10px; border: 1px solid var(--line); border-radius: 6px;
        background: var(--bg); color: var(--fg); cursor: pointer; }
      button:hover { border-color: var(--accent); }
      button.active { background: var(--accent); border-color: var(--accent); color: #fff; }
      .badge { font-size: 12px; padding: 2px 8px; border-radius: 10px; border: 1px solid var(--line);
        color: var(--muted); }
      .badge.live { color: var(--ok); border-color: var(--ok); }
      .badge.down { color: var(--bad); border-color: var(--bad); }
      .panel, #message { margin: 12px 20px; padding: 10px 12px; border: 1px solid var(--warn); border-radius: 6px;
        background: var(--card); }
      .panel label { display: block; margin-bottom: 6px; }
      #message.error { border-color: var(--bad); }
      main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(280px, 2fr); gap: 20px; padding: 16px 20px; }
      @media (max-width: 900px) { main { grid-template-columns: minmax(0, 1fr); } }
      section { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px;
        margin-bottom: 16px; }
      .count { color: var(--muted); font-weight: normal; }
      .empty { color: var(--muted); }
      ol { list-style: none; margin: 0; padding: 0; }
      #journal li { border-top: 1px solid var(--line); padding: 6px 0; }
      #journal li:first-child { border-top: none; }
      .line { display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; }
      .index { color: var(--muted); min-width: 3em; }
      .method { font-weight: 600; }
      .url { overflow-wrap: anywhere; flex: 1 1 20em; }
      .status { font-weight: 600; }
      .status.s2, .status.s3 { color: var(--ok); }
      .status.s4 { color: var(--warn); }
      .status.s5, .unmatched .status { color: var(--bad); }
      .by { color: var(--muted); width: 100%; padding-left: 3.5em; }
      .location { color: var(--fg); }
      pre.near-miss, .error-text { margin: 6px 0 0 3.5em; padding: 8px; border-left: 3px solid var(--bad);
        background: var(--bg); white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12.5px; }
      .buttons { display: flex; flex-wrap: wrap; gap: 6px; }
      table { border-collapse: collapse; width: 100%; margin-bottom: 8px; }
      td { padding: 3px 6px 3px 0; vertical-align: baseline; }
      td.state { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
      #stubs li { border-top: 1px solid var(--line); padding: 5px 0; }
      #stubs li:first-child { border-top: none; }
      .request { overflow-wrap: anywhere; }
      .meta { color: var(--muted); font-size: 12.5px; }
      .filters { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-bottom: 8px; }
      .filters input, .filters select { font: inherit; padding: 2px 6px; border: 1px solid var(--line);
        border-radius: 6px; background: var(--bg); color: var(--fg); }
      .filters input[type=text], .filters input[type=search] { flex: 1 1 12em; }
      .filters label { color: var(--muted); }
      #journal .line[role=button] { cursor: pointer; }
      #journal .line[role=button]:focus-visible { outline: 2px solid var(--accent); }
      .time { color: var(--muted); font-size: 12.5px; }
      .detail { margin: 6px 0 4px 3.5em; padding: 8px 10px; border-left: 3px solid var(--accent);
        background: var(--bg); overflow-wrap: anywhere; }
      .detail h3 { font-size: 13.5px; margin: 8px 0 4px; }
      .detail h3:first-child { margin-top: 0; }
      .detail p { margin: 2px 0; }
      .detail table.fields td { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
      .detail td.name { color: var(--muted); white-space: nowrap; }
      .detail pre.body, .detail ol.events li, .detail ol.frames li { font-family: ui-monospace, SFMono-Regular, Menlo, monospace;
        font-size: 12.5px; white-space: pre-wrap; max-height: 24em; overflow: auto; margin: 4px 0; }
      .detail pre.near-miss { margin-left: 0; }
      #journal-more { margin-top: 8px; }
      .actions { margin-top: 10px; display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
      .actions .editor-slot, .actions .copy-note, .actions .copy-output { flex: 1 1 100%; }
      .stub-editor, .definition-editor { margin-top: 6px; padding: 8px 10px; border: 1px solid var(--line);
        border-radius: 6px; background: var(--card); }
      .stub-editor label.field { display: flex; gap: 8px; align-items: baseline; margin: 4px 0; }
      .stub-editor label.field .label { flex: 0 0 8.5em; color: var(--muted); }
      .stub-editor input[type=text], .stub-editor textarea { flex: 1 1 auto; }
      .stub-editor input, .stub-editor textarea, .definition-editor textarea, textarea.copy-output {
        font: 12.5px ui-monospace, SFMono-Regular, Menlo, monospace; padding: 3px 6px; border: 1px solid var(--line);
        border-radius: 6px; background: var(--bg); color: var(--fg); }
      .definition-editor textarea, textarea.copy-output { width: 100%; }
      .stub-editor .buttons, .definition-editor .buttons { margin-top: 6px; }
      .stub-actions { margin-top: 4px; }
      .stub-actions button, .actions button { font-size: 12.5px; }
      .stub-result.error-text { margin-left: 0; }

      """#
  }
#endif
