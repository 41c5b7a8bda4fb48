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

        /** The entries read for the current filter, oldest first (at most `keptEntries`). */
        let entries = [];
        /** How many of the newest `entries` are rendered (rows), and how many more "show older" adds. */
        const pageRows = 200;
        const keptEntries = 20000;
        let shown = pageRows;
        /** How many entries matched the filter since it was set (kept or not). */
        let matchCount = 0;
        /** The index of the row that is open, or null. */
        let openIndex = null;
        /** The detail of the open row, moved into its row again when the list is rendered anew. */
        let openDetail = null;

        function clearJournal() {
          byId("journal").replaceChildren();
          entries.length = 0;
          matchCount = 0;
          shown = pageRows;
          next = 0;
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

        async function loadDetail(index, box) {
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
          return parts;
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
        function filterChanged() {
          clearTimeout(filterTimer);
          filterTimer = setTimeout(() => {
            show("");
            queue = queue
              .then(async () => {
                clearJournal();
                await refreshJournal();
              })
              .catch(report);
          }, 250);
        }

        for (const name of filterFields) {
          const field = byId("filter-" + name);
          field.addEventListener(field.tagName === "SELECT" ? "change" : "input", filterChanged);
        }
        // Enter in a field filters at once; the form is never sent.
        byId("filters").addEventListener("submit", (event) => {
          event.preventDefault();
          filterChanged();
        });
        byId("filter-clear").addEventListener("click", () => {
          for (const name of filterFields) byId("filter-" + name).value = "";
          filterChanged();
        });

        /** Renders the newest `shown` entries, newest first, in one go. */
        function renderAll() {
          const fragment = document.createDocumentFragment();
          const first = Math.max(0, entries.length - shown);
          for (let i = entries.length - 1; i >= first; i--) fragment.append(entryRow(entries[i]));
          byId("journal").replaceChildren(fragment);
        }

        function renderCounts(answer) {
          const list = byId("journal");
          byId("journal-empty").hidden = list.children.length > 0;
          byId("journal-empty").textContent = isFiltered()
            ? "No request matches the filter."
            : "No requests yet. Requests to the stub server appear here as they arrive.";
          const older = entries.length - list.children.length;
          const more = byId("journal-more");
          more.hidden = older <= 0;
          more.textContent = `Show ${Math.min(older, pageRows)} older (${older} not shown)`;
          const dropped = answer.dropped ? `, ${answer.dropped} dropped by the journal's limit` : "";
          byId("journal-count").textContent = isFiltered()
            ? `(${matchCount} of ${answer.next} match${dropped})`
            : `(${answer.next}${dropped})`;
        }

        let lastAnswer = { next: 0, dropped: 0 };
        byId("journal-more").addEventListener("click", () => {
          shown += pageRows;
          renderAll();
          renderCounts(lastAnswer);
        });

        async function refreshJournal() {
          const added = [];
          let answer;
          for (;;) {
            answer = await call("GET", "requests?since=" + next + filterQuery());
            if (answer.next < next) {
              // Cleared since the last read: read it all again.
              clearJournal();
              return refreshJournal();
            }
            for (const entry of answer.requests) added.push(entry);
            next = answer.next;
            // The server answers a page at a time: read on to the newest.
            if (!answer.more) break;
          }
          matchCount += added.length;
          const list = byId("journal");
          for (const entry of added) entries.push(entry);
          if (entries.length > keptEntries) entries.splice(0, entries.length - keptEntries);
          if (added.length > pageRows || list.children.length === 0) {
            renderAll();
          } else {
            for (const entry of added) list.prepend(entryRow(entry));
            // New rows push the oldest out of view, but never the open one.
            while (list.children.length > shown) {
              let last = list.lastElementChild;
              if (Number(last.dataset.index) === openIndex && last.previousElementSibling) last = last.previousElementSibling;
              last.remove();
            }
          }
          lastAnswer = answer;
          renderCounts(answer);
        }

        // MARK: Stubs, scenario, state

        async function refreshStubs() {
          const answer = await call("GET", "stubs");
          const list = byId("stubs");
          list.replaceChildren();
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
              if (all) clearJournal();
              const journal = all || earlier.requests !== latest.requests || earlier.dropped !== latest.dropped;
              const stubs = journal || earlier.stubs !== latest.stubs || earlier.stubRevision !== latest.stubRevision;
              const scenario = all || earlier.scenario !== latest.scenario;
              const state =
                journal || earlier.state !== latest.state ||
                JSON.stringify(earlier.machines) !== JSON.stringify(latest.machines);
              const reads = [];
              if (journal) reads.push(refreshJournal());
              if (all && openIndex !== null && openDetail) loadDetail(openIndex, openDetail);
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
