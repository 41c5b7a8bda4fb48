#if Server
  extension DashboardFile {
    /// The dashboard's script: reads the admin API (with the token once the user gives it, kept in
    /// a variable only), listens to `events`, and writes what it reads as text.
    static let scriptText = #"""
      "use strict";
      (() => {
        const api = document.body.dataset.api;
        /** The admin token, once the user gives it: in this variable only, never stored. */
        let token = null;
        /** The journal's next entry number: the `since` of the next read. */
        let next = 0;
        /** The last summary the event stream sent. */
        let summary = null;
        /** The event stream being read, to stop it. */
        let stream = null;
        /** Refreshes run one after the other. */
        let queue = Promise.resolve();
        const maximumRows = 500;

        const byId = (id) => document.getElementById(id);

        /** An element with a class and text (as text: never parsed as HTML). */
        function element(tag, className, text) {
          const made = document.createElement(tag);
          if (className) made.className = className;
          if (text !== undefined && text !== null) made.textContent = String(text);
          return made;
        }

        class NeedsToken extends Error {}

        function authorization(headers) {
          if (token !== null) headers.Authorization = "Bearer " + token;
          return headers;
        }

        /** Calls the admin API; the JSON answer, or an error that says why not. */
        async function call(method, path, body) {
          const init = { method, cache: "no-store", headers: authorization({ Accept: "application/json" }) };
          if (body !== undefined) {
            init.headers["Content-Type"] = "application/json";
            init.body = JSON.stringify(body);
          }
          const response = await fetch(api + path, init);
          if (response.status === 401) {
            askForToken(token === null ? null : "The admin API refused that token. Check it and try again.");
            throw new NeedsToken();
          }
          const text = await response.text();
          let json = null;
          try { json = JSON.parse(text); } catch (_) { json = null; }
          if (!response.ok) {
            throw new Error((json && json.error) || `${method} ${api}${path}: ${response.status}`);
          }
          return json;
        }

        function show(message, isError) {
          const box = byId("message");
          box.textContent = message || "";
          box.hidden = !message;
          box.classList.toggle("error", Boolean(isError));
        }

        function report(error) {
          if (error instanceof NeedsToken) return;
          show(String(error && error.message ? error.message : error), true);
        }

        function setLive(text, className) {
          const badge = byId("live");
          badge.textContent = text;
          badge.className = "badge " + className;
        }

        // MARK: The token

        function askForToken(message) {
          stopListening();
          setLive("needs the admin token", "down");
          byId("token-panel").hidden = false;
          if (message) show(message, true);
          byId("token").focus();
        }

        function useToken() {
          const field = byId("token");
          token = field.value.trim();
          field.value = "";
          byId("token-panel").hidden = true;
          show("");
          start();
        }

        byId("token-use").addEventListener("click", useToken);
        byId("token").addEventListener("keydown", (event) => {
          if (event.key === "Enter") useToken();
        });

        // MARK: The journal

        /** How many rows the list shows at most (the newest that match), and how many "show older" adds. */
        const pageRows = 200;
        let shown = pageRows;
        /** How many entries matched the filter (of those the server looked at), and how many of them have no row. */
        let matchCount = 0;
        let olderCount = 0;
        /** Whether the server looked at every entry it keeps for the count (false past its scan limit). */
        let countedAll = true;
        /** Whether the list was read since it was last cleared (then only newer entries are read). */
        let loaded = false;
        /** The index of the oldest row of the list read in order ("show older" reads before it). */
        let oldestShown = 0;
        /** The index of the row that is open, or null. */
        let openIndex = null;
        /** The detail of the open row, moved into its row again when the list is rendered anew. */
        let openDetail = null;

        function clearJournal() {
          byId("journal").replaceChildren();
          matchCount = 0;
          olderCount = 0;
          countedAll = true;
          shown = pageRows;
          next = 0;
          loaded = false;
        }

        function describeStub(stub) {
          return (stub.name ? stub.name + " · " : "") + stub.location;
        }

        function timeOf(entry) {
          const date = new Date(entry.receivedAt);
          return isNaN(date.getTime()) ? "" : date.toLocaleTimeString();
        }

        function entryRow(entry) {
          const row = element("li", "entry " + (entry.matched ? "matched" : "unmatched"));
          row.dataset.index = entry.index;
          const line = element("div", "line");
          line.tabIndex = 0;
          line.setAttribute("role", "button");
          line.setAttribute("aria-expanded", String(entry.index === openIndex));
          line.title = "Open the request and its answer";
          const status = entry.status === undefined ? "—" : entry.status;
          line.append(
            element("span", "index", "#" + entry.index),
            element("span", "time", timeOf(entry)),
            element("span", "method", entry.method),
            element("span", "url", entry.url),
            element("span", "status s" + String(status).charAt(0), status),
          );
          const by = element("div", "by");
          if (entry.stub) {
            by.append("answered by ", element("span", "location", describeStub(entry.stub)));
          } else if (!entry.matched) {
            by.append("no stub matched");
          } else {
            by.append("passed through");
          }
          line.append(by);
          line.addEventListener("click", () => toggle(row, entry.index));
          line.addEventListener("keydown", (event) => {
            if (event.key === "Enter" || event.key === " ") {
              event.preventDefault();
              toggle(row, entry.index);
            }
          });
          row.append(line);
          if (entry.nearMiss) {
            row.append(element("pre", "near-miss", entry.nearMiss));
          } else if (entry.error) {
            row.append(element("div", "error-text", entry.error));
          }
          if (entry.index === openIndex && openDetail) row.append(openDetail);
          return row;
        }

        // MARK: An opened row

        function toggle(row, index) {
          const wasOpen = openIndex === index;
          if (openDetail) openDetail.remove();
          for (const line of byId("journal").querySelectorAll(".line[aria-expanded=true]")) {
            line.setAttribute("aria-expanded", "false");
          }
          openIndex = null;
          openDetail = null;
          if (wasOpen) return;
          openIndex = index;
          openDetail = element("div", "detail", "Reading #" + index + "…");
          row.querySelector(".line").setAttribute("aria-expanded", "true");
          row.append(openDetail);
          loadDetail(index, openDetail);
        }

        async function loadDetail(index, box, refreshing) {
          // A stub being written from this entry is not thrown away by a refresh.
          if (refreshing && box.querySelector(".stub-editor")) return;
          try {
            const detail = await call("GET", "requests/" + index);
            if (openDetail !== box) return;
            box.replaceChildren(...detailParts(detail));
          } catch (error) {
            if (error instanceof NeedsToken) return;
            box.replaceChildren(element("p", "error-text", String(error && error.message ? error.message : error)));
          }
        }

        function fieldsTable(fields) {
          const table = element("table", "fields");
          const body = element("tbody");
          for (const field of fields) {
            const row = element("tr");
            row.append(element("td", "name", field.name), element("td", "value", field.value));
            body.append(row);
          }
          table.append(body);
          return table;
        }

        function bodyParts(body) {
          if (!body) return [element("p", "meta", "no body")];
          const size = body.size === 1 ? "1 byte" : `${body.size} bytes`;
          const type = body.mimeType ? body.mimeType + ", " : "";
          switch (body.kind) {
            case "json":
              return [element("p", "meta", `JSON, ${size} (pretty-printed)`), element("pre", "body json", body.text)];
            case "text":
              if (body.events) {
                const list = element("ol", "events");
                for (const event of body.events) list.append(element("li", "", event));
                return [element("p", "meta", `${type}${body.events.length} events, ${size}`), list];
              }
              return [element("p", "meta", type + size), element("pre", "body", body.text)];
            case "binary":
              return [element("p", "meta", `${type}binary, ${size}; the first bytes:`), element("pre", "body hex", body.hexPreview)];
            case "omitted":
              return [element("p", "meta", `${size}, not kept by the journal (SHA-256 ${body.sha256})`)];
            default:
              return [element("p", "meta", size)];
          }
        }

        function detailParts(detail) {
          const parts = [];
          const request = detail.request;
          parts.push(element("h3", "", "Request"));
          parts.push(element("p", "meta", "received " + new Date(detail.receivedAt).toLocaleString()));
          parts.push(element("p", "url", request.method + " " + request.url));
          parts.push(fieldsTable(request.headers));
          parts.push(...bodyParts(request.body));
          parts.push(element("h3", "", "Answer"));
          if (detail.response) {
            const response = detail.response;
            parts.push(element("p", "status s" + String(response.status).charAt(0), String(response.status)));
            parts.push(element("p", "meta", "played back " + response.timing));
            parts.push(fieldsTable(response.headers));
            parts.push(...bodyParts(response.body));
          } else {
            parts.push(element("p", "meta", detail.pending ? "still being answered" : "no answer"));
          }
          if (detail.stub) {
            const by = element("p", "by-stub");
            by.append("answered by ", element("span", "location", describeStub(detail.stub)));
            parts.push(by);
          }
          if (detail.nearMiss) parts.push(element("pre", "near-miss", detail.nearMiss));
          if (detail.error) parts.push(element("div", "error-text", detail.error));
          if (detail.webSocket) {
            parts.push(element("h3", "", "WebSocket frames"));
            const list = element("ol", "frames");
            for (const frame of detail.webSocket) list.append(element("li", "frame " + frame.from, frame.from + " → " + frame.frame));
            if (detail.webSocket.length === 0) list.append(element("li", "empty", "none kept"));
            parts.push(list);
          }
          parts.push(detailActions(detail));
          return parts;
        }

        // MARK: Making a stub from an entry, copying it

        function button(className, text, action) {
          const made = element("button", className, text);
          made.type = "button";
          made.addEventListener("click", action);
          return made;
        }

        /** Shows `text` in `output` (selected, to copy by hand) and puts it on the clipboard. */
        function copy(text, output, what) {
          output.hidden = false;
          output.value = text;
          output.dataset.copied = what;
          const note = output.previousElementSibling;
          const manual = () => {
            note.textContent = what + " is below: select it and copy it.";
            output.focus();
            output.select();
          };
          note.textContent = what + ":";
          if (navigator.clipboard && window.isSecureContext) {
            navigator.clipboard.writeText(text).then(() => {
              note.textContent = what + " is on the clipboard (and below).";
            }, manual);
          } else {
            manual();
          }
        }

        /** An output for copied text: a note and a read-only text area, hidden until used. */
        function copyOutput() {
          const note = element("p", "meta copy-note");
          const output = element("textarea", "copy-output");
          output.readOnly = true;
          output.rows = 6;
          output.spellcheck = false;
          output.hidden = true;
          return [note, output];
        }

        function detailActions(detail) {
          const box = element("div", "actions");
          const [note, output] = copyOutput();
          const editorSlot = element("div", "editor-slot");
          box.append(
            button("save-stub", "Save as stub…", () => {
              if (!editorSlot.firstChild) editorSlot.append(stubEditor(detail));
              editorSlot.querySelector("input").focus();
            }),
            button("copy-curl", "Copy as cURL", () => copy(curlCommand(detail.request), output, "The request as cURL")),
            note,
            output,
            editorSlot,
          );
          return box;
        }

        /** `text` quoted for a POSIX shell. */
        function shellQuoted(text) {
          return "'" + String(text).replace(/'/g, "'\\''") + "'";
        }

        /** The request as a curl command (its headers and body as the journal shows them: redacted). */
        function curlCommand(request) {
          const skipped = ["host", "content-length", "connection", "transfer-encoding", "accept-encoding"];
          const lines = ["curl" + (request.method === "GET" ? "" : request.method === "HEAD" ? " --head" : " -X " + request.method)];
          for (const field of request.headers) {
            if (!skipped.includes(field.name.toLowerCase())) lines.push("-H " + shellQuoted(field.name + ": " + field.value));
          }
          const body = request.body;
          if (body && (body.kind === "json" || body.kind === "text")) lines.push("--data-binary " + shellQuoted(body.text));
          lines.push(shellQuoted(request.url));
          let command = lines.join(" \\\n  ");
          if (body && (body.kind === "binary" || body.kind === "omitted")) {
            command = `# The body (${body.size} bytes) is not shown in the journal as text; add it with --data-binary @file.\n` + command;
          }
          return command;
        }

        const idSegment = [
          /^[0-9]+$/,
          /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
          /^[0-9a-f]{16,}$/i,
        ];

        /** `path` with each segment that looks like an id (a number, a UUID, long hex) as `{id}`, `{id2}`, …. */
        function pathTemplate(path) {
          let count = 0;
          return path
            .split("/")
            .map((segment) => {
              if (!idSegment.some((pattern) => pattern.test(segment))) return segment;
              count += 1;
              return count === 1 ? "{id}" : "{id" + count + "}";
            })
            .join("/");
        }

        /** Header fields a server sets itself, left out of a stub. */
        const serverFields = ["content-length", "date", "connection", "transfer-encoding", "keep-alive", "server"];

        function labelled(text, field) {
          const label = element("label", "field");
          label.append(element("span", "label", text), field);
          return label;
        }

        function input(className, value) {
          const made = element("input", className);
          made.type = "text";
          made.spellcheck = false;
          made.value = value;
          return made;
        }

        function textArea(className, value, rows) {
          const made = element("textarea", className);
          made.spellcheck = false;
          made.rows = rows;
          made.value = value;
          return made;
        }

        /** A form that writes a stub answering `detail`'s request, prefilled with its answer. */
        function stubEditor(detail) {
          const form = element("div", "stub-editor");
          const request = detail.request;
          let path = "/";
          try { path = new URL(request.url).pathname; } catch (_) { path = request.path; }
          const template = pathTemplate(path);
          const response = detail.matched && detail.response ? detail.response : null;
          let headers = "";
          let body = "";
          let bodyNote = "";
          if (response) {
            headers = response.headers
              .filter((field) => !serverFields.includes(field.name.toLowerCase()) && !field.name.toLowerCase().startsWith("x-doppel-"))
              .map((field) => field.name + ": " + field.value)
              .join("\n");
            const answer = response.body;
            if (answer && (answer.kind === "json" || answer.kind === "text")) {
              body = answer.text;
            } else if (answer) {
              bodyNote = `The answer's body (${answer.size} bytes, ${answer.kind}) cannot be written here; the stub has the body below.`;
            }
          } else {
            headers = "Content-Type: application/json";
            body = "{}";
          }
          const fields = {
            name: input("stub-name", ""),
            method: input("stub-method", request.method),
            path: input("stub-path", template),
            status: input("stub-status", String(response ? response.status : 200)),
            headers: textArea("stub-headers", headers, 3),
            body: textArea("stub-body", body, 6),
            file: input("stub-file", "saved.json"),
          };
          fields.status.inputMode = "numeric";
          const usesTemplate = element("input", "stub-template");
          usesTemplate.type = "checkbox";
          usesTemplate.checked = template !== path;
          usesTemplate.disabled = template === path;
          usesTemplate.addEventListener("change", () => {
            fields.path.value = usesTemplate.checked ? template : path;
          });
          const templateLabel = element("label", "meta");
          templateLabel.append(usesTemplate, template === path ? " no segment looks like an id" : ` match any id (${template})`);
          const folder = element("p", "meta stub-folder", "");
          call("GET", "saved-stubs")
            .then((answer) => {
              folder.textContent = answer.folder
                ? `Saved into ${answer.folder}, in the file below (made when it is not there; added at its end).`
                : "This server saves no stubs: start doppel serve with --save-stubs-to DIR to save them. Add serves the stub without saving it.";
            })
            .catch(() => {});
          const result = element("p", "stub-result");
          result.hidden = true;
          const [note, output] = copyOutput();
          const fail = (error) => {
            if (error instanceof NeedsToken) return;
            result.hidden = false;
            result.className = "stub-result error-text";
            result.textContent = String(error && error.message ? error.message : error);
          };
          const built = () => {
            try {
              return stubFromFields(fields);
            } catch (error) {
              fail(error);
              return null;
            }
          };
          const send = (path, body, done) => {
            result.hidden = true;
            call("POST", path, body)
              .then((answer) => {
                show(done(answer));
                form.remove();
                refresh(null);
              })
              .catch(fail);
          };
          form.append(
            element("h3", "", "A stub for this request"),
            labelled("Name", fields.name),
            labelled("Method", fields.method),
            labelled("Path", fields.path),
            templateLabel,
            labelled("Status", fields.status),
            labelled("Headers (one Name: value a line)", fields.headers),
            labelled("Body", fields.body),
          );
          if (bodyNote) form.append(element("p", "meta", bodyNote));
          form.append(labelled("File", fields.file), folder);
          const buttons = element("div", "buttons");
          buttons.append(
            button("stub-save", "Add and save", () => {
              const stub = built();
              if (!stub) return;
              send("saved-stubs", { file: fields.file.value.trim(), stub }, (answer) =>
                `Stub #${answer.stub.id} is served now and saved into ${answer.path} (line ${answer.line}).`);
            }),
            button("stub-add", "Add without saving", () => {
              const stub = built();
              if (!stub) return;
              send("stubs", stub, (answer) => `Stub #${answer.id} is served now (not saved).`);
            }),
            button("copy-json", "Copy as manifest JSON", () => {
              const stub = built();
              if (stub) copy(JSON.stringify(stub, null, 2), output, "The stub as manifest JSON");
            }),
            button("copy-swift", "Copy as Swift", () => {
              const stub = built();
              if (stub) copy(swiftStub(stub), output, "The stub in Swift");
            }),
            button("stub-cancel", "Cancel", () => form.remove()),
          );
          form.append(buttons, result, note, output);
          return form;
        }

        /** The manifest stub the form describes; an error that names the field when one is wrong. */
        function stubFromFields(fields) {
          const method = fields.method.value.trim().toUpperCase();
          if (!/^[A-Z]+$/.test(method)) throw new Error("Method: write an HTTP method, such as GET.");
          const path = fields.path.value.trim();
          if (!path.startsWith("/")) throw new Error("Path: write a path that starts with /, such as /users/{id}.");
          const status = Number(fields.status.value.trim());
          if (!Number.isInteger(status) || status < 100 || status > 599) throw new Error("Status: write an HTTP status, 100 to 599.");
          const headers = {};
          for (const line of fields.headers.value.split("\n")) {
            if (!line.trim()) continue;
            const colon = line.indexOf(":");
            if (colon <= 0) throw new Error(`Headers: "${line.trim()}" is not a header field; write Name: value.`);
            const name = line.slice(0, colon).trim();
            const value = line.slice(colon + 1).trim();
            if (headers[name] === undefined) headers[name] = value;
            else headers[name] = [].concat(headers[name], value);
          }
          const response = { status };
          if (Object.keys(headers).length > 0) response.headers = headers;
          const body = fields.body.value;
          if (body.trim()) {
            const type = Object.keys(headers).find((name) => name.toLowerCase() === "content-type");
            let parsed;
            let isJSON = false;
            try {
              parsed = JSON.parse(body);
              isJSON = !type || /json/i.test(String(headers[type]));
            } catch (_) {
              isJSON = false;
            }
            if (isJSON) response.json = parsed;
            else response.text = body;
          }
          const stub = {};
          const name = fields.name.value.trim();
          if (name) stub.name = name;
          stub.request = method + " " + path;
          stub.response = response;
          return stub;
        }

        /** `text` as a Swift string literal: plain when it can be, else raw (`#"…"#`), else escaped. */
        function swiftString(text) {
          const control = /[\u0000-\u001f\u007f]/.test(text);
          if (!control && !/["\\]/.test(text)) return '"' + text + '"';
          if (!control && !text.includes('"#')) return '#"' + text + '"#';
          let escaped = "";
          for (const character of text) {
            const code = character.codePointAt(0);
            if (character === "\\") escaped += "\\\\";
            else if (character === '"') escaped += '\\"';
            else if (character === "\n") escaped += "\\n";
            else if (character === "\r") escaped += "\\r";
            else if (character === "\t") escaped += "\\t";
            else if (code < 0x20 || code === 0x7f) escaped += "\\u{" + code.toString(16) + "}";
            else escaped += character;
          }
          return '"' + escaped + '"';
        }

        /** The stub in Swift, with Doppel's API: `backend.stub(.get("/users/{id}"), .json(raw: …))`. */
        function swiftStub(stub) {
          const space = stub.request.indexOf(" ");
          const method = stub.request.slice(0, space);
          const path = stub.request.slice(space + 1);
          const known = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"];
          const matcher = known.includes(method)
            ? "." + method.toLowerCase() + "(" + swiftString(path) + ")"
            : ".method(HTTPMethod(rawValue: " + swiftString(method) + ")) && .url(" + swiftString(path) + ")";
          const response = stub.response;
          const extras = [];
          let headers = "";
          if (response.headers) {
            const pairs = [];
            for (const name of Object.keys(response.headers)) {
              for (const value of [].concat(response.headers[name])) pairs.push(swiftString(name) + ": " + swiftString(value));
            }
            headers = "[" + pairs.join(", ") + "]";
          }
          let answer;
          if (response.json !== undefined || response.text !== undefined) {
            if (response.status !== 200) extras.push("status: " + response.status);
            if (headers) extras.push("headers: " + headers);
            const tail = extras.length ? ", " + extras.join(", ") : "";
            answer = response.json !== undefined
              ? ".json(raw: " + swiftString(JSON.stringify(response.json)) + tail + ")"
              : ".text(" + swiftString(response.text) + tail + ")";
          } else {
            answer = ".status(" + response.status + (headers ? ", headers: " + headers : "") + ")";
          }
          const name = stub.name ? ", name: " + swiftString(stub.name) : "";
          return "backend.stub(" + matcher + ", " + answer + name + ")";
        }

        // MARK: Finding a request

        const filterFields = ["method", "status", "matched", "path", "text", "from", "to"];

        /** The filter's query parameters, `&`-joined, each after a `&`. */
        function filterQuery() {
          let query = "";
          for (const name of filterFields) {
            let value = byId("filter-" + name).value.trim();
            if (!value) continue;
            if (name === "from" || name === "to") {
              const date = new Date(value);
              if (isNaN(date.getTime())) continue;
              value = date.toISOString();
            }
            query += "&" + name + "=" + encodeURIComponent(value);
          }
          return query;
        }

        function isFiltered() {
          return filterQuery() !== "";
        }

        let filterTimer = null;
        /** Reads the list for the filter: at once for a choice, after `pause` ms for typing. */
        function filterChanged(pause) {
          clearTimeout(filterTimer);
          filterTimer = setTimeout(() => {
            show("");
            queue = queue.then(loadJournal).catch(report);
          }, pause || 0);
        }

        for (const name of filterFields) {
          const field = byId("filter-" + name);
          const typed = field.type === "text" || field.type === "search";
          field.addEventListener(typed ? "input" : "change", () => filterChanged(typed ? 120 : 0));
        }
        // Enter in a field filters at once; the form is never sent.
        byId("filters").addEventListener("submit", (event) => {
          event.preventDefault();
          filterChanged(0);
        });
        byId("filter-clear").addEventListener("click", () => {
          for (const name of filterFields) byId("filter-" + name).value = "";
          filterChanged(0);
        });

        /** Rows for `entries` (oldest first), newest first, in one fragment. */
        function rowsOf(entries) {
          const fragment = document.createDocumentFragment();
          for (let i = entries.length - 1; i >= 0; i--) fragment.append(entryRow(entries[i]));
          return fragment;
        }

        function renderCounts(answer) {
          const list = byId("journal");
          byId("journal-empty").hidden = list.children.length > 0;
          byId("journal-empty").textContent = isFiltered()
            ? "No request matches the filter."
            : "No requests yet. Requests to the stub server appear here as they arrive.";
          const more = byId("journal-more");
          more.hidden = olderCount <= 0;
          more.textContent = `Show ${Math.min(olderCount, pageRows)} older (${olderCount} not shown)`;
          // The event stream's summary knows the latest count; a read says it too.
          const total = Math.max(droppedCount, summary && summary.requests >= answer.next ? summary.dropped : 0);
          const dropped = total ? `, ${total} dropped by the journal's limit` : "";
          const atLeast = countedAll ? "" : "at least ";
          byId("journal-count").textContent = isFiltered()
            ? `(${atLeast}${matchCount} of ${answer.next} match${dropped})`
            : `(${answer.next}${dropped})`;
        }

        let lastAnswer = { next: 0, dropped: 0 };
        /** How many entries the journal's limit dropped, as the last full read said. */
        let droppedCount = 0;

        /** Reads the newest `pageRows` entries that match (and how many match) and shows them anew. */
        async function loadJournal() {
          const answer = await call("GET", "requests?last=" + pageRows + filterQuery());
          clearJournal();
          matchCount = answer.matches;
          olderCount = answer.matches - answer.requests.length;
          countedAll = !answer.more;
          next = answer.next;
          droppedCount = answer.dropped;
          loaded = true;
          oldestShown = answer.requests.length ? answer.requests[0].index : answer.next;
          byId("journal").replaceChildren(rowsOf(answer.requests));
          lastAnswer = answer;
          renderCounts(answer);
        }

        // "Show older": the page of matches before the oldest row, added below it.
        byId("journal-more").addEventListener("click", () => {
          queue = queue
            .then(async () => {
              const list = byId("journal");
              const answer = await call("GET", `requests?last=${pageRows}&before=${oldestShown}` + filterQuery());
              // The open row, kept below the list when newer rows pushed it out: the older rows
              // newer than it go above it.
              const last = list.lastElementChild;
              const stray = last && Number(last.dataset.index) < oldestShown ? last : null;
              // Built apart and added at once: the list is laid out once, not at each row.
              const above = document.createDocumentFragment();
              const below = document.createDocumentFragment();
              for (let i = answer.requests.length - 1; i >= 0; i--) {
                const entry = answer.requests[i];
                if (stray && entry.index === openIndex) continue;
                (stray && entry.index > openIndex ? above : below).append(entryRow(entry));
              }
              if (stray) list.insertBefore(above, stray);
              list.append(below);
              if (answer.requests.length) oldestShown = answer.requests[0].index;
              shown = list.children.length;
              olderCount = answer.matches - answer.requests.length;
              if (answer.more) countedAll = false;
              renderCounts(lastAnswer);
            })
            .catch(report);
        });

        /** Reads the entries newer than the last read and puts them on top (a few rows, not the list). */
        async function refreshJournal() {
          if (!loaded) return loadJournal();
          const added = [];
          let answer;
          for (;;) {
            answer = await call("GET", "requests?since=" + next + filterQuery());
            if (answer.next < next) {
              // Cleared since the last read: read it anew.
              return loadJournal();
            }
            for (const entry of answer.requests) added.push(entry);
            next = answer.next;
            // The server answers a page at a time: read on to the newest, or past a page of rows
            // read the newest anew.
            if (!answer.more) break;
            if (added.length > pageRows) return loadJournal();
          }
          if (added.length > pageRows) return loadJournal();
          matchCount += added.length;
          const list = byId("journal");
          list.prepend(rowsOf(added));
          // New rows push the oldest out of view, but never the open one.
          let trimmed = false;
          while (list.children.length > shown) {
            trimmed = true;
            let last = list.lastElementChild;
            if (Number(last.dataset.index) === openIndex && last.previousElementSibling) last = last.previousElementSibling;
            last.remove();
            olderCount += 1;
          }
          if (trimmed) {
            let oldest = list.lastElementChild;
            if (Number(oldest.dataset.index) === openIndex && oldest.previousElementSibling) oldest = oldest.previousElementSibling;
            oldestShown = Number(oldest.dataset.index);
          }
          lastAnswer = answer;
          renderCounts(answer);
        }

        // MARK: Stubs, scenario, state

        /** The stub being edited (its id), and its editor, put back when the list is drawn again. */
        let editedStub = null;
        let stubEditorBox = null;

        /** An editor of an added stub's definition: replaced through PUT stubs/{id}. */
        function definitionEditor(stub) {
          const box = element("div", "definition-editor");
          const text = textArea("stub-definition", JSON.stringify(stub.definition, null, 2), 10);
          const result = element("p", "stub-result error-text");
          result.hidden = true;
          const close = () => {
            box.remove();
            editedStub = null;
            stubEditorBox = null;
          };
          const buttons = element("div", "buttons");
          buttons.append(
            button("stub-replace", "Replace the stub", () => {
              let definition;
              try {
                definition = JSON.parse(text.value);
              } catch (error) {
                result.hidden = false;
                result.textContent = "The stub is not JSON: " + error.message;
                return;
              }
              call("PUT", "stubs/" + stub.id, definition)
                .then((answer) => {
                  close();
                  show(`Stub #${stub.id} is replaced by stub #${answer.id}, served now.`);
                  refresh(null);
                })
                .catch((error) => {
                  if (error instanceof NeedsToken) return;
                  result.hidden = false;
                  result.textContent = String(error && error.message ? error.message : error);
                });
            }),
            button("stub-cancel", "Cancel", close),
          );
          box.append(
            element("p", "meta", "The stub as a manifest writes it (secrets show as the journal shows them):"),
            text,
            buttons,
            result,
          );
          return box;
        }

        async function refreshStubs() {
          const answer = await call("GET", "stubs");
          const list = byId("stubs");
          list.replaceChildren();
          if (editedStub !== null && !answer.stubs.some((stub) => stub.id === editedStub)) {
            editedStub = null;
            stubEditorBox = null;
          }
          for (const stub of answer.stubs) {
            const row = element("li", "stub");
            row.dataset.id = stub.id;
            const title = element("div", "line");
            title.append(element("span", "index", "#" + stub.id), element("span", "request", stub.request));
            row.append(title);
            const details = [stub.location, stub.source === "admin" ? "added through the admin API" : "from the files"];
            if (stub.name) details.unshift(stub.name);
            details.push(stub.callCount === 1 ? "1 call" : `${stub.callCount} calls`);
            if (stub.times !== undefined) details.push(`answers ${stub.times} times`);
            if (stub.requiresState) details.push("requires state " + stub.requiresState);
            if (stub.setsState) details.push("sets state " + stub.setsState);
            row.append(element("div", "meta", details.join(" · ")));
            const actions = element("div", "buttons stub-actions");
            if (stub.source === "admin" && stub.definition) {
              actions.append(
                button("stub-edit", "Edit", () => {
                  if (stubEditorBox) stubEditorBox.remove();
                  editedStub = stub.id;
                  stubEditorBox = definitionEditor(stub);
                  row.append(stubEditorBox);
                  stubEditorBox.querySelector("textarea").focus();
                }),
              );
            }
            actions.append(
              button("stub-remove", "Remove", () => {
                const what = stub.source === "admin" ? "" : " (it comes back when the files reload)";
                if (!window.confirm(`Remove stub #${stub.id}${what}?`)) return;
                change("DELETE", "stubs/" + stub.id);
              }),
            );
            row.append(actions);
            if (stub.id === editedStub && stubEditorBox) row.append(stubEditorBox);
            list.append(row);
          }
          byId("stub-count").textContent = `(${answer.stubs.length})`;
        }

        async function refreshScenario() {
          const answer = await call("GET", "scenario");
          const box = byId("scenarios");
          box.replaceChildren();
          if (answer.scenarios.length === 0) {
            box.append(element("p", "empty", "This server has no scenarios: its files name none."));
            return;
          }
          const choices = [{ name: null, label: "base stubs only" }].concat(
            answer.scenarios.map((name) => ({ name, label: name })),
          );
          for (const choice of choices) {
            const button = element("button", "scenario", choice.label);
            button.type = "button";
            button.dataset.scenario = choice.name === null ? "" : choice.name;
            const active = answer.active === choice.name;
            button.classList.toggle("active", active);
            button.setAttribute("aria-pressed", String(active));
            button.addEventListener("click", () => change("PUT", "scenario", { scenario: choice.name }));
            box.append(button);
          }
        }

        function stateRow(label, state, reset) {
          const row = element("tr");
          row.append(element("td", "", label), element("td", "state", state));
          const cell = element("td");
          const button = element("button", "reset", "reset");
          button.type = "button";
          button.disabled = state === "initial";
          button.addEventListener("click", reset);
          cell.append(button);
          row.append(cell);
          return row;
        }

        async function refreshState() {
          const answer = await call("GET", "state");
          const body = byId("states").tBodies[0];
          body.replaceChildren(stateRow("main", answer.state, () => change("PUT", "state", { state: "initial" })));
          for (const name of Object.keys(answer.machines).sort()) {
            const row = stateRow(name, answer.machines[name], () =>
              change("PUT", "state", { machine: name, state: "initial" }),
            );
            row.dataset.machine = name;
            body.append(row);
          }
        }

        /** Changes something through the admin API, then shows the result. */
        function change(method, path, body) {
          show("");
          call(method, path, body)
            .then(() => refresh(null))
            .catch(report);
        }

        byId("reset-states").addEventListener("click", () => change("DELETE", "state"));
        byId("clear-journal").addEventListener("click", () => change("DELETE", "requests"));

        // The journal's HAR, fetched with the token (a plain link cannot send it).
        byId("har").addEventListener("click", (event) => {
          event.preventDefault();
          fetch(api + "requests.har", { cache: "no-store", headers: authorization({}) })
            .then(async (response) => {
              if (response.status === 401) {
                askForToken(null);
                return;
              }
              if (!response.ok) throw new Error("The journal's HAR could not be read: " + response.status);
              const url = URL.createObjectURL(await response.blob());
              const link = element("a");
              link.href = url;
              link.download = "doppel-journal.har";
              document.body.append(link);
              link.click();
              link.remove();
              setTimeout(() => URL.revokeObjectURL(url), 10000);
            })
            .catch(report);
        });

        // MARK: Refreshing

        /** Reads what changed between two summaries (everything when there is no earlier one). */
        function refresh(latest) {
          const earlier = summary;
          if (latest) summary = latest;
          queue = queue
            .then(async () => {
              const all = !earlier || !latest || earlier.changes !== latest.changes;
              // The list stays until the new one is read (loadJournal replaces it).
              if (all) loaded = false;
              const journal = all || earlier.requests !== latest.requests || earlier.dropped !== latest.dropped;
              const stubs = journal || earlier.stubs !== latest.stubs || earlier.stubRevision !== latest.stubRevision;
              const scenario = all || earlier.scenario !== latest.scenario;
              const state =
                journal || earlier.state !== latest.state ||
                JSON.stringify(earlier.machines) !== JSON.stringify(latest.machines);
              const reads = [];
              if (journal) reads.push(refreshJournal());
              if (all && openIndex !== null && openDetail) loadDetail(openIndex, openDetail, true);
              if (stubs) reads.push(refreshStubs());
              if (scenario) reads.push(refreshScenario());
              if (state) reads.push(refreshState());
              await Promise.all(reads);
            })
            .catch(report);
          return queue;
        }

        // MARK: The event stream (read with fetch, which can send the token; EventSource cannot)

        function stopListening() {
          if (stream) stream.abort();
          stream = null;
        }

        function handle(block) {
          let name = "message";
          const data = [];
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) continue;
            const colon = line.indexOf(":");
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
            if (field === "event") name = value;
            if (field === "data") data.push(value);
          }
          if (name === "changed" && data.length > 0) refresh(JSON.parse(data.join("\n")));
        }

        async function listen() {
          const controller = new AbortController();
          stream = controller;
          try {
            const response = await fetch(api + "events", {
              cache: "no-store",
              headers: authorization({ Accept: "text/event-stream" }),
              signal: controller.signal,
            });
            if (response.status === 401) {
              askForToken(null);
              return;
            }
            if (!response.ok || !response.body) throw new Error("the event stream answered " + response.status);
            setLive("live", "live");
            const reader = response.body.getReader();
            const decoder = new TextDecoder();
            let buffer = "";
            for (;;) {
              const { value, done } = await reader.read();
              if (done) break;
              buffer += decoder.decode(value, { stream: true });
              let end;
              while ((end = buffer.indexOf("\n\n")) >= 0) {
                handle(buffer.slice(0, end));
                buffer = buffer.slice(end + 2);
              }
            }
          } catch (error) {
            if (controller.signal.aborted) return;
          }
          if (stream !== controller) return;
          // The server stopped or the connection broke: try again in a moment.
          setLive("reconnecting…", "down");
          setTimeout(() => {
            if (stream === controller) listen();
          }, 2000);
        }

        function start() {
          stopListening();
          summary = null;
          setLive("connecting…", "");
          refresh(null).then(() => {
            if (byId("token-panel").hidden) listen();
          });
        }

        start();
      })();

      """#
  }
#endif
