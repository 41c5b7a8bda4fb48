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

        function clearJournal() {
          byId("journal").replaceChildren();
          next = 0;
        }

        function describeStub(stub) {
          return (stub.name ? stub.name + " · " : "") + stub.location;
        }

        function entryRow(entry) {
          const row = element("li", "entry " + (entry.matched ? "matched" : "unmatched"));
          row.dataset.index = entry.index;
          const line = element("div", "line");
          const status = entry.status === undefined ? "—" : entry.status;
          line.append(
            element("span", "index", "#" + entry.index),
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
          row.append(line);
          if (entry.nearMiss) {
            row.append(element("pre", "near-miss", entry.nearMiss));
          } else if (entry.error) {
            row.append(element("div", "error-text", entry.error));
          }
          return row;
        }

        async function refreshJournal() {
          const answer = await call("GET", "requests?since=" + next);
          if (answer.next < next) {
            // Cleared since the last read: read it all again.
            clearJournal();
            return refreshJournal();
          }
          const list = byId("journal");
          for (const entry of answer.requests) list.prepend(entryRow(entry));
          while (list.children.length > maximumRows) list.lastElementChild.remove();
          next = answer.next;
          // The server answers a page at a time: read on to the newest.
          if (answer.more) return refreshJournal();
          byId("journal-empty").hidden = list.children.length > 0;
          const dropped = answer.dropped ? `, ${answer.dropped} dropped by the journal's limit` : "";
          byId("journal-count").textContent = `(${answer.next}${dropped})`;
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
