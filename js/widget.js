// @ts-check
/**
 * Dichotomy widgets: one ES module for the three screens (kind = "seat" | "table" | "pass").
 *
 * The kernel owns every synced trait. This module only reads `view` (and `curtain`, `host`) and sends
 * intents as custom messages `{id, type, ...}`; the kernel answers `{ack: id}` or
 * `{refused: id, code, message}`. Every name, clue and guess is inserted as text (textContent or text
 * nodes), never as HTML.
 *
 * The view says what the screen shows: a control appears only when its action is in `view.actions`
 * (the engine's move table), text boxes take their lengths from `view.limits`, and a recap names the
 * next round in `view.next`. Layout: the translator (`t`, `tn`), small helpers (`h`, chips,
 * `actionButton`, `entry`), then one function per screen, then the `App` that talks to the kernel and
 * renders the frame around a screen.
 *
 * Language: every sentence is English in the source, marked `t("Round {n}", {n})` or
 * `tn("{n} card", "{n} cards", n)` (tools/i18n.py extracts them into the `dichotomy` catalogue) and
 * looked up in the catalogue the kernel syncs in the `i18n` trait; a missing message shows its English.
 */

/**
 * @typedef {{seat: number, name: string, you: boolean, guesser: boolean, drawer: boolean,
 *   turn: boolean, clue: string, confirmed: boolean}} Player
 * @typedef {{seat: number, author: string, text: string|null, timeout: boolean, cause: string,
 *   eliminated: boolean, reason: string|null, reason_text: string, matched: string[]}} RecapClue
 * @typedef {{round: number, guesser: string, drawer: string, pair_number: number, target: string,
 *   foil: string, clues: RecapClue[], guess: string|null, passed: boolean, cause: string,
 *   outcome: string, outcome_text: string, reason: string|null, reason_text: string,
 *   penalty_discarded: boolean, score_card_removed: boolean, score: number, discard: number,
 *   deck_left: number}} Recap
 * @typedef {{round: number, guesser: string, target: string, foil: string, guess: string|null,
 *   outcome: string, score: number}} HistoryRow
 * @typedef {{seat: number, name: string}} SeatRef
 * @typedef {{round: number, guesser: SeatRef, drawer: SeatRef, cards_left: number}} NextRound
 * @typedef {{clue: number, guess: number, name: number, min_seats: number, max_seats: number,
 *   min_time_limit: number, max_time_limit: number, min_recap_time: number}} Limits
 * @typedef {{band: string, from: number}} LadderStep
 * @typedef {{score: number, rounds: number, band: string, ended_by_host: boolean, ladder: LadderStep[]}} Final
 * @typedef {{phase: string, round: number, rounds: number, score: number, discard: number,
 *   deck_left: number, lang: string, led_by: string, deck: string, you: {seat: number, name: string, role: string}|null, players: Player[],
 *   turn: number|null, status: string, actions: string[],
 *   card: {number: number, target: string, foil: string}[]|null,
 *   pair: {number: number, target: string, foil: string}|null,
 *   slate: {text: string|null, timeout: boolean, eliminated: boolean}|null,
 *   clues: string[]|null, recap: Recap|null, history: HistoryRow[],
 *   final: Final|null, next: NextRound|null, limits: Limits,
 *   deadline: number|null, version: number, stage: string, table: string}} View
 * @typedef {{seat: number, name: string, task: string, phase: string, guesser: string, round: number,
 *   rounds: number, score: number, deck_left: number, version: number}} Curtain
 * @typedef {{get: (name: string) => any, send: (content: any) => void,
 *   on: (event: string, cb: Function) => void, off: (event: string, cb: Function) => void}} Model
 * @typedef {{button: HTMLButtonElement|null, slot: HTMLElement|null, input: HTMLInputElement|null,
 *   timer: number, type: string}} Pending
 * @typedef {{button?: HTMLButtonElement|null, slot?: HTMLElement|null, input?: HTMLInputElement|null}} ActUi
 * @typedef {(action: Record<string, any>, ui?: ActUi) => void} Act
 * @typedef {{lang: string, plural_categories: string[], messages: Record<string, string|string[]>,
 *   languages?: [string, string][]}} Catalogue
 * @typedef {{draft: {text: string, queued: boolean}, setDraft: (text: string) => void,
 *   queue: (text: string) => void, unqueue: () => void}} ScreenCtx
 */

const REPLY_TIMEOUT_MS = 20000;
/** A screen with no view yet asks the kernel to send it again this often (an update it missed). */
const VIEW_RETRY_MS = 4000;
/** A screen with a view tells the kernel which one (its version) this often; the kernel sends its traits
 * again if the screen is behind (an update it missed). */
const VIEW_CHECK_MS = 10000;
/** A screen that has had no view for this long says the table is not answering and offers a reload
 * (a seat's link brings it back to its seat); it keeps asking meanwhile. */
const VIEW_STALLED_MS = 30000;

// --- the translator ---------------------------------------------------------------------------------
//
// `t` and `tn` read the catalogue of the App that is rendering (App.useLanguage sets it before every
// render, reply and clock tick), so two widgets in one notebook may speak two languages.

/** @type {Catalogue} */
const ENGLISH = { lang: "en", plural_categories: ["one", "other"], messages: {} };
let active = ENGLISH;
/** @type {Map<string, {plural: Intl.PluralRules, number: Intl.NumberFormat}>} */
const intlCache = new Map();

/** Plural rules and number format of `lang` (English when the browser lacks it). @param {string} lang */
function intlFor(lang) {
  let found = intlCache.get(lang);
  if (!found) {
    try {
      found = { plural: new Intl.PluralRules(lang), number: new Intl.NumberFormat(lang) };
    } catch (_err) {
      found = { plural: new Intl.PluralRules("en"), number: new Intl.NumberFormat("en") };
    }
    intlCache.set(lang, found);
  }
  return found;
}

/** Make `catalogue` the one `t`/`tn` read. @param {any} catalogue */
function useCatalogue(catalogue) {
  active = catalogue && typeof catalogue === "object" && catalogue.messages ? catalogue : ENGLISH;
}

/** A number written the active language's way (1,234 / 1.234 / 1 234). @param {number} n */
function num(n) {
  return intlFor(active.lang).number.format(n);
}

/**
 * Fill `{name}` placeholders from `params` (numbers formatted for the language); unknown ones stay.
 * @param {string} text
 * @param {Record<string, any>} params
 */
function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!(name in params)) return whole;
    const value = params[name];
    return typeof value === "number" ? num(value) : String(value);
  });
}

/**
 * `msgid` in the active language with its placeholders filled; the English msgid when missing.
 * @param {string} msgid
 * @param {Record<string, any>} [params]
 */
function t(msgid, params = {}) {
  const text = active.messages[msgid];
  return fill(typeof text === "string" && text ? text : msgid, params);
}

/**
 * The plural form for `n` (`{n}` is available): the language's CLDR category (Intl.PluralRules)
 * mapped to the catalogue's form through `plural_categories` (gettext order); last form if unknown.
 * @param {string} singular
 * @param {string} plural
 * @param {number} n
 * @param {Record<string, any>} [params]
 */
function tn(singular, plural, n, params = {}) {
  const forms = active.messages[singular];
  const all = { ...params, n };
  if (!Array.isArray(forms) || !forms.length || forms.some((f) => !f)) {
    return fill(intlFor("en").plural.select(n) === "one" ? singular : plural, all);
  }
  const index = active.plural_categories.indexOf(intlFor(active.lang).plural.select(n));
  return fill(forms[index >= 0 && index < forms.length ? index : forms.length - 1], all);
}

/** The "really end?" question of the End buttons. */
function endConfirm() {
  return t("Really end the game? Press again");
}

/** Words a student understands for how a clue went missing. @param {string} cause @param {string} ledBy */
function noClueText(cause, ledBy) {
  switch (cause) {
    case "empty": return t("skipped (no clue)");
    case "host": return ledBy === "teacher" ? t("no clue (timed out by the teacher)") : t("no clue (timed out by the host)");
    case "time_limit": return t("no clue (ran out of time)");
    default: return t("no clue");
  }
}

/** A round's outcome in two words. @param {string} outcome */
function outcomeLabel(outcome) {
  switch (outcome) {
    case "correct": return t("Right!");
    case "wrong": return t("Not it");
    case "foil": return t("The Foil!");
    case "pass": return t("Passed");
    default: return outcome;
  }
}

/**
 * A writer's clue status as [symbol, words]; "confirmed" is a player who has read the recap.
 * @param {string} mark
 * @returns {[string, string]}
 */
function markWords(mark) {
  switch (mark) {
    case "submitted": return ["✓", t("clue in")];
    case "writing": return ["✎", t("writing…")];
    case "waiting": return ["·", t("waiting")];
    case "timeout": return ["–", t("no clue")];
    case "confirmed": return ["✓", t("read")];
    default: return ["", ""];
  }
}

// --- small helpers ---------------------------------------------------------------------------------

/**
 * Create an element. Children that are strings become text nodes (never parsed as HTML).
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @param {...(Node|string|null|undefined|false)} children
 * @returns {HTMLElement}
 */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = String(value);
    else if (key === "text") el.textContent = String(value);
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "disabled" || key === "hidden") /** @type {any} */ (el)[key] = Boolean(value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return el;
}

let uidCounter = 0;
/** @param {string} prefix */
function uid(prefix) {
  uidCounter += 1;
  return `dw-${prefix}-${uidCounter}-${Math.floor(Math.random() * 1e6)}`;
}

/** A quoted word, as text (the language's quotation marks). @param {string} word */
function quoted(word) {
  return t("“{word}”", { word });
}

/**
 * A translated sentence with an element (a struck-out or bold word) where its `{word}` is: the
 * sentence's words stay text nodes, wherever the language puts the word.
 * @param {string} sentence
 * @param {Node} word
 */
function withWord(sentence, word) {
  const at = sentence.indexOf("{word}");
  if (at < 0) return h("span", {}, sentence, " ", word);
  return h("span", {}, sentence.slice(0, at), word, sentence.slice(at + "{word}".length));
}

/** An inline error slot (an alert region next to the control it belongs to). @param {string} [id] */
function errorSlot(id) {
  return h("p", { class: "dw-error", role: "alert", id: id || null });
}

/**
 * A Target or Foil word with its label ("Target ", "Foil ").
 * @param {"target"|"foil"} kind
 * @param {Node|string} word
 */
function wordChip(kind, word) {
  return h("span", { class: `dw-${kind}` },
    h("span", { class: "dw-word-label", text: `${kind === "target" ? t("Target") : t("Foil")} ` }), word);
}

/**
 * A status mark (✓ clue in, ✎ writing…, ✓ read, …): beside a player's name (`"✓ clue in"`), or with
 * `name` as one slot of the writers' progress list.
 * @param {string} mark a key of MARK
 * @param {string} cls the element's classes
 * @param {string} [name]
 */
function markChip(mark, cls, name) {
  const [symbol, words] = markWords(mark);
  if (name === undefined) {
    return h("span", { class: cls, "data-mark": mark }, h("span", { "aria-hidden": "true", text: symbol }), ` ${words}`);
  }
  return h("li", { class: cls, "data-mark": mark },
    h("span", { class: "dw-slot-mark", "aria-hidden": "true", text: symbol }),
    h("span", { class: "dw-name", text: name }), h("span", { class: "dw-slot-state", text: words }));
}

/** The surviving clues as chips. @param {string[]|null} clues @param {string} label */
function clueChips(clues, label) {
  const list = clues || [];
  if (!list.length) {
    return h("p", { class: "dw-noclues", text: t("No clues survived: every clue was eliminated.") });
  }
  return h("ul", { class: "dw-clues", "aria-label": label }, ...list.map((c) => h("li", { class: "dw-clue", text: c })));
}

/**
 * A button that sends `action`; with `confirm`, the first press only arms it (its label becomes
 * `confirm`) and the second press sends.
 * @param {Act} act
 * @param {{label: string, action: Record<string, any>, slot: HTMLElement, cls?: string,
 *   confirm?: string, autofocus?: boolean, dataAction?: string}} opts
 * @returns {HTMLButtonElement}
 */
function actionButton(act, opts) {
  const b = /** @type {HTMLButtonElement} */ (h("button", {
    class: opts.cls || "dw-button dw-primary", type: "button", "data-autofocus": opts.autofocus || null,
    "data-action": opts.dataAction || opts.action.type,
  }, opts.label));
  let armed = false;
  b.addEventListener("click", () => {
    if (opts.confirm && !armed) {
      armed = true;
      b.dataset.armed = "true"; // relabel() leaves the question in place
      b.textContent = opts.confirm;
      return;
    }
    act(opts.action, { button: b, slot: opts.slot });
  });
  return b;
}

/**
 * Give a kept button a new label, unless it is armed (showing its "press again" question).
 * @param {HTMLElement} b
 * @param {string} label
 */
function relabel(b, label) {
  if (b.dataset.armed !== "true" && b.textContent !== label) b.textContent = label;
}

// --- drawing from the view: a region is rebuilt when a value it read has changed --------------------

/** The key under which a drawing's view hands out its tracker (see `derived`, `untracked`). */
const TRACKER = Symbol("dichotomy.tracker");

/** What a read value is compared by: a leaf by its JSON, an object or array by its kind only (its
 * fields are compared where they were read). @param {any} value */
function readSignature(value) {
  if (value === null || typeof value !== "object") return value === undefined ? "undefined" : JSON.stringify(value);
  return Array.isArray(value) ? "[]" : "{}";
}

/** The value at `path` in `root` (undefined where the path breaks off). @param {any} root @param {string[]} path */
function valueAt(root, path) {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = value[key];
  }
  return value;
}

/**
 * One region drawn from a view (or any data object, such as the curtain). The drawing function gets
 * the view through a proxy that notes every value it reads, by path (`players.length`,
 * `players.2.name`, `you.role`), and every derived value asked through `derived` (`nextWriter`); the
 * region is drawn again only when one of those values, or the region's own `extra` state (not in the
 * view), differs. So what rebuilds a screen follows from what it draws: no list of fields to keep.
 */
class Drawing {
  constructor() {
    /** @type {Map<string, [(root: any) => string, string]>|null} how to read each noted value, and its value */
    this.reads = null;
    this.extra = "";
  }

  /** Forget the last drawing (the next `stale` is true): the language changed. */
  reset() {
    this.reads = null;
  }

  /** True when the region must be drawn again for `view` and `extra`. @param {any} view @param {any} extra */
  stale(view, extra) {
    if (this.reads === null || this.extra !== JSON.stringify(extra)) return true;
    for (const [read, was] of this.reads.values()) if (read(view) !== was) return true;
    return false;
  }

  /**
   * Draw with `draw(tracked view)` and note what it read; returns what `draw` returns.
   * @template T @param {any} view @param {any} extra @param {(view: any) => T} draw @returns {T}
   */
  draw(view, extra, draw) {
    /** @type {Map<string, [(root: any) => string, string]>} */
    const reads = new Map();
    let open = true; // reads after the drawing (an event handler's) are not the drawing's
    /** @param {string} key @param {(root: any) => string} read @param {string} value */
    const note = (key, read, value) => { if (open && !reads.has(key)) reads.set(key, [read, value]); };
    const tracker = {
      raw: view,
      /** @param {string} name @param {(view: any) => any} fn */
      derive(name, fn) {
        const value = fn(view);
        note(`derived:${name}`, (root) => JSON.stringify(fn(root)) ?? "undefined", JSON.stringify(value) ?? "undefined");
        return value;
      },
    };
    /** @param {any} value @param {string[]} path @returns {any} */
    const track = (value, path) => {
      if (value === null || typeof value !== "object") return value;
      return new Proxy(value, {
        get(target, prop, receiver) {
          if (prop === TRACKER) return path.length === 0 ? tracker : undefined;
          const got = Reflect.get(target, prop, receiver);
          // methods and other inherited members are not data; a missing field is (it may come)
          if (typeof prop !== "string" || (prop in target && !Object.prototype.hasOwnProperty.call(target, prop))) return got;
          const at = [...path, prop];
          note(at.join("\u0000"), (root) => readSignature(valueAt(root, at)), readSignature(got));
          return track(got, at);
        },
        has(target, prop) {
          const found = Reflect.has(target, prop);
          if (typeof prop === "string") {
            note(`in:${[...path, prop].join("\u0000")}`, (root) => {
              const parent = valueAt(root, path);
              return String(parent !== null && typeof parent === "object" && prop in parent);
            }, String(found));
          }
          return found;
        },
        ownKeys(target) {
          note(`keys:${path.join("\u0000")}`, (root) => {
            const here = valueAt(root, path);
            return JSON.stringify(here !== null && typeof here === "object" ? Object.keys(here) : []);
          }, JSON.stringify(Object.keys(target)));
          return Reflect.ownKeys(target);
        },
      });
    };
    try {
      return draw(track(view, []));
    } finally {
      open = false;
      this.reads = reads;
      this.extra = JSON.stringify(extra);
    }
  }
}

/**
 * A function of the view whose result (not the fields it reads to get it) is what a drawing depends
 * on: `nextWriter` reads every player's mark, but a screen changes only when its answer does.
 * @template T @param {string} name @param {(view: View) => T} fn @returns {(view: View) => T}
 */
function derived(name, fn) {
  return (view) => {
    const tracker = view && /** @type {any} */ (view)[TRACKER];
    return tracker ? tracker.derive(name, fn) : fn(view);
  };
}

/** The view itself, not noting reads: for what a region refreshes in place (a kept button's label). @param {View} view @returns {View} */
function untracked(view) {
  const tracker = view && /** @type {any} */ (view)[TRACKER];
  return tracker ? tracker.raw : view;
}

/**
 * A text box with its submit button (the main action, disabled while the box is empty), an optional
 * small secondary "skip" button that asks once more before it sends, and an inline error slot. Enter
 * submits; Enter on an empty box asks once more too (a second Enter, or the skip button, confirms).
 * @param {Act} act
 * @param {{label: string, send: string, confirmEmpty: string, testid: string, maxlength: number,
 *   action: (text: string) => Record<string, any>, skip?: HTMLButtonElement, extra?: HTMLElement[],
 *   value?: string, onInput?: (text: string) => void,
 *   onSubmit?: (text: string, ui: ActUi) => void, note?: HTMLElement}} opts
 */
function entry(act, opts) {
  const id = uid("in");
  const errId = uid("err");
  const slot = errorSlot(errId);
  const input = /** @type {HTMLInputElement} */ (h("input", {
    id, class: "dw-input", type: "text", maxlength: opts.maxlength, autocomplete: "off", autocapitalize: "off",
    spellcheck: "false", enterkeyhint: "send", "aria-describedby": errId, "data-autofocus": true, "data-testid": opts.testid,
  }));
  if (opts.value) input.value = opts.value;
  const button = /** @type {HTMLButtonElement} */ (h("button", { class: "dw-button dw-primary dw-send", type: "submit", "data-action": "send" }, opts.send));
  const skip = opts.skip || null;
  const skipLabel = skip ? skip.textContent || "" : "";
  const nothingTyped = t("Nothing typed. Press Enter or “{button}” again to confirm.", { button: opts.confirmEmpty });
  let armed = false;
  const label = () => {
    button.disabled = !input.value.trim();
    if (skip) skip.textContent = armed ? opts.confirmEmpty : skipLabel;
  };
  label();
  input.addEventListener("input", () => {
    armed = false;
    slot.textContent = "";
    label();
    if (opts.onInput) opts.onInput(input.value);
  });
  const form = h("form", { class: "dw-entry", novalidate: true },
    h("label", { class: "dw-label", for: id, text: opts.label }),
    h("div", { class: "dw-entry-row" }, input, button), opts.note || "", slot,
    skip || (opts.extra || []).length ? h("div", { class: "dw-entry-extra" }, skip || "", ...(opts.extra || [])) : "");
  const send = (/** @type {string} */ text) => {
    armed = false;
    const ui = { button: text ? button : skip, slot, input };
    if (opts.onSubmit) opts.onSubmit(text, ui);
    else act(opts.action(text), ui);
    label();
  };
  const arm = () => {
    armed = true;
    label();
    slot.textContent = nothingTyped;
  };
  const submit = () => {
    const text = input.value.trim(); // exactly what the box holds now
    if (!text && !armed) arm();
    else send(text);
  };
  if (skip) {
    skip.addEventListener("click", () => {
      if (armed) send("");
      else arm();
    });
  }
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    submit();
  });
  // Enter submits through its own handler: JupyterLab stops the browser's implicit form submit.
  // Escape takes back an armed "nothing typed" confirmation.
  input.addEventListener("keydown", (ev) => {
    if (ev.isComposing || ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    if (ev.key === "Enter") {
      ev.preventDefault();
      if (!input.readOnly) submit();
    } else if (ev.key === "Escape" && armed) {
      armed = false;
      slot.textContent = "";
      label();
    }
  });
  return { form, input, slot, button };
}

/** The name of the first player matching `test`, or "?". @param {View} view @param {(p: Player) => boolean} test */
function playerName(view, test) {
  return (view.players.find(test) || { name: "?" }).name;
}

/**
 * True when this seat has read a recap that has a next round: its screen moves on to the next
 * round's pick (the Drawer may pick while the others still read).
 * @param {View} view
 */
const nextRoundStarted = derived("nextRoundStarted", (view) =>
  view.phase === "recap" && Boolean(view.next) && view.players.some((p) => p.you && p.confirmed));

// --- screens: one function each, (view, act, kind) -> element ------------------------------------

/** @param {View} view @param {Act} act @param {string} kind */
function lobbyScreen(view, act, kind) {
  const names = view.players.length;
  const { min_seats: least, max_seats: most } = view.limits;
  const box = h("div", { class: "dw-panel dw-lobby" },
    h("h2", { class: "dw-h", text: t("Waiting to start") }),
    h("p", { "data-testid": "lobby-count", text: tn("{n} player at the table. Dichotomy needs {least} to {most}.",
      "{n} players at the table. Dichotomy needs {least} to {most}.", names, { least, most }) }));
  if (kind === "pass") {
    if (view.actions.includes("start")) {
      const slot = errorSlot();
      box.append(h("p", { text: t("Sit together around this screen. Each private screen is behind a curtain: pass the screen to the player it names.") }),
        actionButton(act, { label: t("Start the game"), action: { type: "start" }, slot, autofocus: true }), slot);
    } else {
      box.append(h("p", { text: t("Add players in the notebook with table.join(\"Name\"), then come back here.") }));
    }
  } else if (kind === "seat") {
    box.append(h("p", { class: "dw-help", text: view.led_by === "teacher" ? t("The teacher starts the game when everyone is here.")
      : t("The host starts the game when everyone is here.") }), howToPlay());
  }
  return box;
}

/** Three cards that teach the game while a student waits in the lobby (Target, Foil, matching clues cancel). */
function howToPlay() {
  /** @param {string} cls @param {string} n @param {string} title @param {string} text @param {Node} picture */
  const card = (cls, n, title, text, picture) => h("li", { class: `dw-howto-card ${cls}` },
    h("span", { class: "dw-howto-n", "aria-hidden": "true", text: n }), picture,
    h("h3", { class: "dw-h3", text: title }), h("p", { text }));
  return h("section", { class: "dw-howto", "aria-label": t("How to play") },
    h("h3", { class: "dw-h3", text: t("How to play") }),
    h("ol", { class: "dw-howto-cards" },
      card("dw-howto-target", "1", t("The Target"),
        t("One player guesses. Everyone else sees a secret word, the Target, and writes a one-word clue for it."),
        h("span", { class: "dw-howto-pic dw-target", "aria-hidden": "true", text: "◎" })),
      card("dw-howto-foil", "2", t("The Foil"),
        t("Beside the Target is a Foil, a word close to it. If the Guesser says the Foil, the team loses a card."),
        h("span", { class: "dw-howto-pic dw-foil", "aria-hidden": "true", text: "✗" })),
      card("dw-howto-match", "3", t("Matching clues cancel"),
        t("Two clues that match (the same word, a plural, the same root) are both removed before the Guesser sees them. Be original!"),
        h("span", { class: "dw-howto-pic", "aria-hidden": "true", text: "⇄" }))));
}

/** The Drawer's five pairs; keys 1 to 5 pick (App.onKey, anywhere in the widget). @param {View} view @param {Act} act */
function pickScreen(view, act) {
  const slot = errorSlot();
  const list = h("ol", { class: "dw-pairs", "aria-label": t("Pairs on this card") });
  for (const pair of view.card || []) {
    const b = /** @type {HTMLButtonElement} */ (h("button", {
      class: "dw-pair", type: "button", "data-pair": pair.number,
      "aria-label": t("Pair {number}: Target {target}, Foil {foil}", { number: pair.number, target: pair.target, foil: pair.foil }),
      "data-autofocus": pair.number === 1 ? true : null,
    },
    h("span", { class: "dw-pair-number", text: num(pair.number) }),
    h("span", { class: "dw-pair-words" }, wordChip("target", pair.target), wordChip("foil", pair.foil))));
    b.addEventListener("click", () => act({ type: "pick", pair: pair.number }, { button: b, slot }));
    list.append(h("li", {}, b));
  }
  return h("div", { class: "dw-panel" },
    h("h2", { class: "dw-h", text: t("You are the Drawer: pick one pair") }),
    h("p", { class: "dw-help", text: touchScreen()
      ? t("Your team writes clues for the Target. The Guesser must not say the Foil. Tap a pair.")
      : t("Your team writes clues for the Target. The Guesser must not say the Foil. Press 1 to 5 or click a pair.") }),
    list, slot);
}

/**
 * Who has written, in writing order: a placeholder that `App.fillProgress` refreshes on every change,
 * so marks update without rebuilding the screen (and its text box).
 */
function progressSlot() {
  return h("div", { class: "dw-progress-slot" });
}

function guesserWaitScreen() {
  return h("div", { class: "dw-panel dw-guesser-wait" },
    h("div", { class: "dw-eye", "aria-hidden": "true", text: "◉" }),
    h("h2", { class: "dw-h", text: t("You are guessing this round") }),
    h("p", { text: t("The others are choosing a word and writing clues. Don't look at their screens.") }),
    h("p", { class: "dw-help", text: t("Your guess box appears here when the clues are ready.") }),
    progressSlot());
}

/** On the projector the status line above is the headline: not repeated here. @param {View} view @param {string} kind @param {string} text */
function waitScreen(view, kind, text) {
  return h("div", { class: "dw-panel dw-wait" },
    h("p", { class: "dw-help", text }),
    view.phase === "clues" ? progressSlot() : "");
}

/** This round's pair, for Clue-Givers. @param {View} view */
function pairBox(view) {
  if (!view.pair) return h("span");
  /** @param {"target"|"foil"} kind @param {string} word */
  const item = (kind, word) => h("span", { class: `dw-pairbox-item dw-${kind}` },
    h("span", { class: "dw-word-label", text: kind === "target" ? t("Target") : t("Foil") }),
    h("span", { class: "dw-word", "data-testid": kind, text: word }));
  return h("div", { class: "dw-pairbox", "aria-label": t("This round's pair") },
    item("target", view.pair.target), item("foil", view.pair.foil));
}

/**
 * A Clue-Giver's screen: the pair, and the clue box on this seat's turn. Before it, the clue can be
 * drafted and readied: the App sends it when the turn comes (the engine checks it then).
 * @param {View} view @param {Act} act @param {ScreenCtx} ctx
 */
function writerScreen(view, act, ctx) {
  const panel = h("div", { class: "dw-panel dw-writer" }, pairBox(view));
  if (view.actions.includes("clue")) {
    const skip = /** @type {HTMLButtonElement} */ (h("button", { class: "dw-button dw-quiet dw-skip", type: "button", "data-action": "skip" }, t("Skip (no clue)")));
    panel.append(entry(act, {
      label: t("Your clue: one word that leads to the Target (not the Foil)"), maxlength: view.limits.clue,
      send: t("Send clue"), confirmEmpty: t("Yes, skip my clue"), testid: "clue-input", skip,
      value: ctx.draft.text, onInput: (text) => ctx.setDraft(text), action: (text) => ({ type: "clue", text }),
    }).form);
  } else if (view.slate) {
    panel.append(h("p", { class: "dw-slate" }, view.slate.timeout
      ? t("You gave no clue this round.")
      : h("span", {}, `${t("Your clue:")} `, h("strong", { class: "dw-word", text: view.slate.text || "" }))));
  } else if (view.phase === "clues") {
    if (view.you && nextWriter(view) === view.you.seat) {
      panel.append(h("p", { class: "dw-next-cue", "data-testid": "next-cue", text: t("You're next! Get your clue ready.") }));
    }
    if (ctx.draft.queued) {
      panel.append(h("div", { class: "dw-draft-ready", "data-testid": "draft-ready" },
        h("p", {}, withWord(t("Ready: {word} is sent when your turn comes."), h("strong", { class: "dw-word", text: ctx.draft.text }))),
        h("button", { class: "dw-button dw-quiet", type: "button", "data-action": "edit-draft", onclick: () => ctx.unqueue() },
          t("Change it"))));
    } else {
      panel.append(entry(act, {
        label: t("Draft your clue now: it is sent when your turn comes, and checked then."), maxlength: view.limits.clue,
        send: t("Send on my turn"), confirmEmpty: t("Send on my turn"), testid: "draft-input",
        value: ctx.draft.text, onInput: (text) => ctx.setDraft(text), action: (text) => ({ type: "clue", text }),
        onSubmit: (text) => { if (text) ctx.queue(text); },
      }).form);
    }
    panel.append(h("p", { class: "dw-help", text: t("If someone writes the same clue, both are eliminated.") }));
  } else {
    panel.append(h("p", { class: "dw-help", text: t("Think of a clue now; you can type it when it's your turn. If someone writes the same clue, both are eliminated.") }));
  }
  panel.append(progressSlot());
  return panel;
}

/**
 * The seat that writes after the one writing now (writing order: clockwise from the Guesser's left),
 * or null. Only names and marks of the view: no clue text.
 * @param {View} view
 */
const nextWriter = derived("nextWriter", (view) => {
  const ps = view.players;
  const g = ps.findIndex((p) => p.guesser);
  const ring = g < 0 ? ps : [...ps.slice(g + 1), ...ps.slice(0, g)];
  const writers = ring.filter((p) => p.clue);
  const now = writers.findIndex((p) => p.clue === "writing");
  if (now < 0) return null;
  const after = writers.slice(now + 1).find((p) => p.clue === "waiting");
  return after ? after.seat : null;
});

/** @param {View} view @param {Act} act */
function guessScreen(view, act) {
  const pass = /** @type {HTMLButtonElement} */ (h("button", { class: "dw-button dw-quiet dw-pass", type: "button", "data-action": "pass" }, t("Pass")));
  const box = entry(act, {
    label: t("Your guess"), send: t("Guess"), confirmEmpty: t("Pass"), maxlength: view.limits.guess,
    testid: "guess-input", action: (text) => (text ? { type: "guess", text } : { type: "pass" }), extra: [pass],
  });
  pass.addEventListener("click", () => act({ type: "pass" }, { button: pass, slot: box.slot, input: box.input }));
  return h("div", { class: "dw-panel dw-guess" },
    h("h2", { class: "dw-h", text: t("You are guessing: which word do these clues point to?") }),
    clueChips(view.clues, t("Clues for you")),
    h("p", { class: "dw-help", text: t("One word. Beware the Foil: guessing it costs a scored card. Passing costs nothing.") }),
    box.form);
}

/** @param {View} view */
function watchGuessScreen(view) {
  const panel = h("div", { class: "dw-panel dw-watch" }, pairBox(view),
    h("h3", { class: "dw-h3", text: t("The Guesser sees these clues") }),
    clueChips(view.clues, t("Surviving clues")));
  const s = view.slate;
  if (s) {
    panel.append(h("p", { class: `dw-slate${s.eliminated ? " dw-eliminated" : ""}` },
      s.timeout ? t("You gave no clue this round.")
        : s.eliminated ? withWord(t("Your clue {word} was eliminated: it matched another clue."), h("s", { text: s.text || "" }))
          : withWord(t("Your clue {word} survived."), h("strong", { text: s.text || "" }))));
  }
  return panel;
}

/**
 * One recap clue line; `beat` is the step of the staged reveal that turns it over, `collide` the step
 * where an eliminated clue falls away with its reason.
 * @param {RecapClue} c @param {number} beat @param {number} collide @param {string} ledBy
 */
function recapClue(c, beat, collide, ledBy) {
  const li = h("li", {
    class: `dw-recap-clue${c.eliminated ? " dw-eliminated" : ""}${c.timeout ? " dw-timeout" : ""}`, "data-beat": beat,
  }, h("span", { class: "dw-author", text: t("{name}:", { name: c.author }) }), " ");
  if (c.timeout) {
    li.append(h("span", { class: "dw-noclue", text: noClueText(c.cause, ledBy) }));
  } else if (c.eliminated) {
    const why = c.reason_text || t("it matched another clue");
    const text = c.matched.length
      ? t("eliminated: {why} (same as {names})", { why, names: c.matched.join(", ") })
      : t("eliminated: {why}", { why });
    li.dataset.collide = String(collide);
    li.append(h("s", { class: "dw-word", text: c.text || "" }), " ", h("span", { class: "dw-reason", "data-beat": collide, text }));
  } else {
    li.append(h("strong", { class: "dw-word", text: c.text || "" }));
  }
  return li;
}

/** The big mark of a round's end: ✓, ✗, the Foil or a pass. @param {string} outcome */
function outcomeStamp(outcome) {
  switch (outcome) {
    case "correct": return "✓";
    case "wrong": return "✗";
    case "foil": return t("Foil!");
    default: return "–";
  }
}

/**
 * Everything about a resolved round, in the order of its staged reveal (`data-beat` on each part:
 * the pair, each clue turning over, matching clues falling away, the guess, the outcome, the piles).
 * Only the recap of the view: the staging hides nothing the seat may not see and adds nothing.
 * @param {Recap} r @param {string} ledBy who timed a Guesser out ("host" or "teacher")
 */
function recapBlock(r, ledBy) {
  const guessLine = !r.passed ? t("{name} guessed {word}.", { name: r.guesser, word: quoted(r.guess || "") })
    : r.cause === "host" ? (ledBy === "teacher" ? t("{name} was timed out by the teacher (counts as a pass).", { name: r.guesser })
      : t("{name} was timed out by the host (counts as a pass).", { name: r.guesser }))
      : t("{name} passed.", { name: r.guesser });
  const extras = [];
  if (r.penalty_discarded) extras.push(t("The next card was discarded as a penalty."));
  if (r.score_card_removed) extras.push(t("One scored card was lost."));
  const clues = r.clues.length;
  const collide = clues + 2;
  const guessBeat = collide + (r.clues.some((c) => c.eliminated) ? 1 : 0);
  return h("div", { class: "dw-recap", "data-testid": "recap", "data-round": r.round },
    h("h2", { class: "dw-h", text: t("Round {n}", { n: r.round }) }),
    h("p", { class: "dw-recap-pair", "data-beat": 1 },
      wordChip("target", h("strong", { text: r.target })), " ", wordChip("foil", h("strong", { text: r.foil })), " ",
      h("span", { class: "dw-help", text: t("(pair {number}, picked by {name})", { number: r.pair_number, name: r.drawer }) })),
    h("ul", { class: "dw-recap-clues", "aria-label": t("Clues") }, ...r.clues.map((c, i) => recapClue(c, i + 2, collide, ledBy))),
    h("p", { class: "dw-guessline", "data-beat": guessBeat, text: guessLine }),
    h("p", { class: `dw-outcome dw-outcome-${r.outcome}`, "data-outcome": r.outcome, "data-beat": guessBeat + 1 },
      h("span", { class: "dw-stamp", "aria-hidden": "true", text: outcomeStamp(r.outcome) }), " ",
      h("strong", { text: r.outcome_text }),
      r.reason_text && r.reason !== "same" && r.outcome !== "pass" ? ` (${r.reason_text})` : ""),
    extras.length ? h("p", { class: "dw-help", "data-beat": guessBeat + 2, text: extras.join(" ") }) : "",
    h("p", { class: "dw-recap-stats", "data-beat": guessBeat + 2, text: [
      tn("{n} card scored", "{n} cards scored", r.score), tn("{n} discarded", "{n} discarded", r.discard),
      tn("{n} card left", "{n} cards left", r.deck_left)].join(" · ") }));
}

/** @param {View} view @param {Act} act @param {string} kind */
function recapScreen(view, act, kind) {
  const panel = h("div", { class: "dw-panel" });
  if (view.recap) panel.append(staged(recapBlock(view.recap, view.led_by)));
  const slot = errorSlot();
  if (kind === "pass" && view.actions.includes("confirm_absent")) {
    const label = view.next ? t("Continue (for everyone)") : t("See the final score");
    panel.append(actionButton(act, { label, action: { type: "continue_all" }, dataAction: "continue", slot, autofocus: true }), slot);
  } else if (view.actions.includes("continue")) {
    panel.append(actionButton(act, { label: t("Continue"), action: { type: "continue" }, slot, autofocus: true }), slot);
  }
  if (view.deadline) panel.append(recapClock());
  if (view.recap) panel.append(soundToggle());
  return panel;
}

/** Where the recap countdown the host set is shown (App.startClock writes the seconds left). */
function recapClock() {
  return h("p", { class: "dw-clock dw-recap-clock", "aria-live": "off", "data-testid": "recap-clock" });
}

const SOUND_KEY = "dichotomy-sound";

/** True when this browser's player turned the reveal's sound on (off by default). */
function soundOn() {
  try {
    return window.localStorage.getItem(SOUND_KEY) === "on";
  } catch (_err) {
    return false; // storage refused (a private window, a sandbox): no sound
  }
}

/** A small "Sound: off / on" switch for the reveal's sound, remembered by this browser. */
function soundToggle() {
  const b = /** @type {HTMLButtonElement} */ (h("button", { class: "dw-button dw-quiet dw-sound", type: "button", "data-action": "sound" }));
  const show = () => {
    b.textContent = soundOn() ? t("Sound: on") : t("Sound: off");
    b.setAttribute("aria-pressed", String(soundOn()));
  };
  b.addEventListener("click", () => {
    try {
      window.localStorage.setItem(SOUND_KEY, soundOn() ? "off" : "on");
    } catch (err) {
      console.warn("dichotomy: cannot remember the sound setting", err);
    }
    show();
  });
  show();
  return b;
}

/**
 * The outcome's sound, made in the browser (no file is loaded): two rising notes for a right guess,
 * one low note otherwise. Only when the player turned sound on.
 * @param {string} outcome
 */
function chime(outcome) {
  if (!soundOn()) return;
  const Ctx = window.AudioContext || /** @type {any} */ (window).webkitAudioContext;
  if (!Ctx) return;
  try {
    const audio = new Ctx();
    const notes = outcome === "correct" ? [523, 784] : outcome === "pass" ? [392] : [196];
    notes.forEach((freq, i) => {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      const at = audio.currentTime + i * 0.16;
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.2, at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.3);
      osc.connect(gain).connect(audio.destination);
      osc.start(at);
      osc.stop(at + 0.32);
    });
    window.setTimeout(() => audio.close(), 1000);
  } catch (err) {
    console.warn("dichotomy: no sound", err);
  }
}

/** Mark a recap for the App's staged reveal. @param {HTMLElement} block */
function staged(block) {
  block.dataset.staged = "true";
  return block;
}

/**
 * The recap a seat has not finished reading when the next round has already begun (the next Drawer
 * picked): it stays until this player continues (or the recap countdown ends), which only closes it
 * on this screen.
 * @param {Recap} recap @param {string} status @param {() => void} close @param {boolean} timed
 * @param {string} ledBy
 */
function keptRecapScreen(recap, status, close, timed, ledBy) {
  return h("div", { class: "dw-panel dw-kept" },
    h("p", { class: "dw-kept-note", "data-testid": "kept-note", text: t("The next round has started: {status}", { status }) }),
    staged(recapBlock(recap, ledBy)),
    h("button", { class: "dw-button dw-primary", type: "button", "data-action": "continue", "data-autofocus": true, onclick: close },
      t("Continue")), timed ? recapClock() : "", soundToggle());
}

/**
 * The piles as they stood before a recap's round was judged: the header shows them while the staged
 * reveal plays, and the cards move when the reveal reaches the outcome.
 * @param {Recap} r
 */
function pilesBefore(r) {
  const kept = r.outcome === "correct" ? 1 : 0;
  const lost = r.score_card_removed ? 1 : 0;
  const penalty = r.penalty_discarded ? 1 : 0;
  return { score: r.score - kept + lost, discard: r.discard - (1 - kept) - penalty - lost, deck_left: r.deck_left + 1 + penalty };
}

/** A seat that has read the recap: the next round's pick, or waiting for it. @param {View} view @param {Act} act @param {string} kind */
function nextRoundScreen(view, act, kind) {
  if (view.card && view.actions.includes("pick")) return pickScreen(view, act);
  if (view.next && view.you && view.next.guesser.seat === view.you.seat) return guesserWaitScreen();
  return waitScreen(view, kind, t("The Drawer is choosing one of five pairs."));
}

/** @param {View} view */
function finalScreen(view) {
  const f = view.final || { score: view.score, rounds: view.rounds, band: "", ended_by_host: false };
  const rows = (view.history || []).map((r) => h("li", { class: `dw-history-row dw-outcome-${r.outcome}` },
    h("span", { class: "dw-history-round", text: t("Round {n}", { n: r.round }) }),
    h("span", { class: "dw-history-pair" }, h("strong", { text: r.target }), " / ", r.foil),
    h("span", { class: "dw-history-guess", text: r.guess ? t("{name}: {word}", { name: r.guesser, word: quoted(r.guess) })
      : t("{name}: passed", { name: r.guesser }) }),
    h("span", { class: "dw-history-outcome", text: `${outcomeLabel(r.outcome)} · ${t("score {n}", { n: r.score })}` })));
  // the score stands out in the sentence: "<big>3</big> of 5 cards scored", wherever the language puts it
  const [before, after = ""] = tn("{score} of {n} card scored", "{score} of {n} cards scored", f.rounds, { score: "\u0000" })
    .split("\u0000");
  return h("div", { class: "dw-panel dw-final", "data-testid": "final" },
    h("h2", { class: "dw-h", text: t("Game over") }),
    h("p", { class: "dw-final-score" }, before, h("span", { class: "dw-final-number", text: num(f.score) }), after),
    h("p", { class: "dw-band", text: f.band }),
    rankLadder(f),
    f.ended_by_host ? h("p", { class: "dw-help", text: t("The game was ended early.") }) : "",
    rows.length ? h("h3", { class: "dw-h3", text: t("Round by round") }) : "",
    rows.length ? h("ol", { class: "dw-history" }, ...rows) : "",
    view.recap ? h("details", { class: "dw-last-recap" }, h("summary", { text: t("Last round in detail") }), recapBlock(view.recap, view.led_by)) : "");
}

/**
 * The rank ladder: every band this game could reach, lowest at the bottom, the table's own marked.
 * @param {{score: number, band: string, ladder?: {band: string, from: number}[]}} f
 */
function rankLadder(f) {
  const steps = f.ladder || [];
  if (!steps.length) return "";
  const rows = steps.map((step, i) => {
    const top = i + 1 < steps.length ? steps[i + 1].from - 1 : step.from;
    const here = f.score >= step.from && (i + 1 === steps.length || f.score < steps[i + 1].from);
    const range = top > step.from ? t("{low}–{high}", { low: step.from, high: top }) : num(step.from);
    return h("li", { class: `dw-rung${here ? " dw-here" : ""}`, "aria-current": here ? "true" : null },
      h("span", { class: "dw-rung-range", text: range }), h("span", { class: "dw-rung-band", text: step.band }),
      here ? h("span", { class: "dw-rung-here", text: t("You are here") }) : "");
  });
  return h("ol", { class: "dw-ladder", "aria-label": t("Rank ladder") }, ...rows.reverse());
}

/**
 * The screen for a view.
 * @param {View} view @param {Act} act @param {string} kind @param {ScreenCtx} ctx
 * @returns {HTMLElement}
 */
function buildScreen(view, act, kind, ctx) {
  const role = view.you ? view.you.role : "public";
  switch (view.phase) {
    case "lobby": return lobbyScreen(view, act, kind);
    case "reveal":
      if (view.card && view.actions.includes("pick")) return pickScreen(view, act);
      if (role === "guesser") return guesserWaitScreen();
      return waitScreen(view, kind, t("The Drawer is choosing one of five pairs."));
    case "clues":
      if (role === "guesser") return guesserWaitScreen();
      if (role === "public") return waitScreen(view, kind, t("Clues are being written, one at a time."));
      return writerScreen(view, act, ctx);
    case "guess":
      return role === "guesser" ? guessScreen(view, act) : watchGuessScreen(view);
    case "recap":
      return nextRoundStarted(view) ? nextRoundScreen(view, act, kind) : recapScreen(view, act, kind);
    case "over": return finalScreen(view);
    default: return h("p", { text: view.status });
  }
}

/** Who has written so far (names and marks only). @param {View} view */
function progressList(view) {
  const writers = view.players.filter((p) => p.clue);
  if (!writers.length) return h("span");
  return h("ul", { class: "dw-progress", "aria-label": t("Clues so far") },
    ...writers.map((p) => markChip(p.clue, `dw-slot dw-slot-${p.clue}`, p.name)));
}

/**
 * The host's buttons, one per host action the view lists (in the view's order): label and, for
 * "end", a second press to confirm. The lobby's "reorder" and "remove" are per seat: see seatControls.
 * @type {Record<string, (view: View) => {label: string, confirm?: string}>}
 */
const HOST_BUTTONS = {
  start: () => ({ label: t("Start the game") }),
  random_pick: (view) => ({
    label: t("Pick a pair at random for {name}", { name: view.next ? view.next.drawer.name : playerName(view, (p) => p.drawer) }),
  }),
  timeout: (view) => ({
    label: view.phase === "clues" ? t("Time out {name} (no clue)", { name: playerName(view, (p) => p.turn) })
      : t("Time out {name} (counts as a pass)", { name: playerName(view, (p) => p.guesser) }),
  }),
  confirm_absent: (view) => {
    const names = view.players.filter((p) => !p.confirmed).map((p) => p.name);
    return { label: names.length ? t("Continue for {names}", { names: names.join(", ") }) : t("Continue for everyone") };
  },
  end: () => ({ label: t("End the game"), confirm: endConfirm() }),
};

/**
 * The host's buttons for the actions `view` lists, labelled from `labels` (the same view: a drawing
 * passes it untracked, so a new label does not redraw the bar).
 * @param {View} view @param {View} [labels]
 * @returns {{type: string, label: string, confirm?: string}[]}
 */
function hostSpecs(view, labels = view) {
  return view.actions.filter((type) => type in HOST_BUTTONS).map((type) => ({ type, ...HOST_BUTTONS[type](labels) }));
}

/**
 * The host's lobby list of seats in clockwise order, each with Up / Down (reorder) and Remove (a
 * second press confirms), as far as the view's actions allow.
 * @param {View} view
 * @param {Act} act
 * @param {HTMLElement} slot
 */
function seatControls(view, act, slot) {
  const reorder = view.actions.includes("reorder");
  const remove = view.actions.includes("remove");
  if (view.phase !== "lobby" || (!reorder && !remove) || !view.players.length) return [];
  const order = view.players.map((p) => p.seat);
  /** @param {number} i @param {number} j */
  const swapped = (i, j) => { const o = order.slice(); [o[i], o[j]] = [o[j], o[i]]; return o; };
  /** @param {string} label @param {string} aria @param {Record<string, any>} action @param {string} tag @param {string} [confirm] */
  const button = (label, aria, action, tag, confirm) => {
    const b = actionButton(act, { label, action, slot, confirm, dataAction: tag, cls: "dw-button dw-host-button dw-small" });
    b.setAttribute("aria-label", aria);
    return b;
  };
  const rows = view.players.map((p, i) => h("li", { class: "dw-seat-row", "data-seat-name": p.name },
    h("span", { class: "dw-seat-name", text: `${num(i + 1)}. ${p.name}` }),
    reorder && i > 0 ? button(t("Up"), t("Move {name} up", { name: p.name }), { type: "reorder", order: swapped(i, i - 1) }, "move-up") : null,
    reorder && i < order.length - 1
      ? button(t("Down"), t("Move {name} down", { name: p.name }), { type: "reorder", order: swapped(i, i + 1) }, "move-down") : null,
    remove ? button(t("Remove"), t("Remove {name}", { name: p.name }), { type: "remove", seat: p.seat }, "remove",
      t("Really remove {name}? Press again", { name: p.name })) : null));
  return [h("ul", { class: "dw-seat-controls", "aria-label": t("Seats in clockwise order") }, ...rows)];
}

// --- the app: kernel messages and the frame around a screen ---------------------------------------

class App {
  /**
   * @param {Model} model
   * @param {HTMLElement} el
   */
  constructor(model, el) {
    this.model = model;
    this.kind = String(model.get("kind") || "seat");
    this.nextId = Math.floor(Math.random() * 1e6) * 1000;
    /** @type {Map<number, Pending>} */
    this.pending = new Map();
    /** The timer that asks for a view not yet here (see awaitView); 0 when none is set. */
    this.viewTimer = 0;
    /** When this screen began to wait for a view (Date.now()); 0 while it has one. */
    this.waitingSince = 0;
    /** The timer that tells the kernel which view this screen shows (see checkView). */
    this.checkTimer = window.setInterval(() => this.checkView(), VIEW_CHECK_MS);
    /** Each region as last drawn (see Drawing): a view update must not swap a button under the pointer
     * (a press between pointerdown and click) or a focused control, so a region is drawn again only
     * when a value it read changed. */
    this.drawings = { header: new Drawing(), players: new Drawing(), host: new Drawing(), screen: new Drawing() };
    /** @type {HTMLButtonElement[]} the host bar's action buttons, in the view's order */
    this.hostButtons = [];
    this.lastStatus = "";
    /** @type {number|undefined} */
    this.clock = undefined;
    /** @type {number|undefined} */
    this.expireSentFor = undefined;
    /** @type {Act} */
    this.send = (action, ui) => this.act(action, ui);
    /** This seat's clue drafted before its turn (kept in memory only, never sent before the turn). */
    this.draft = { text: "", queued: false, key: "" };
    /** @type {ScreenCtx} */
    this.ctx = {
      draft: this.draft,
      setDraft: (text) => { this.draft.text = text; },
      queue: (text) => { this.draft.text = text; this.draft.queued = true; this.focusOwed = true; this.render(); },
      unqueue: () => { this.draft.queued = false; this.focusOwed = true; this.render(); },
    };
    /** @type {Recap|null} the last recap this seat has not continued from */
    this.kept = null;
    /** @type {number|null} when the kept recap's countdown ends (epoch seconds), if the host set one */
    this.keptUntil = null;
    /** @type {number|undefined} the round whose staged reveal has not reached its outcome yet: the
     * header's piles still show the sizes before it */
    this.heldRound = undefined;
    /** @type {number} the round of the last recap this seat pressed Continue on (its view may never show
     * it confirmed: when its press was the last, the next view is already the next round) */
    this.continued = 0;
    /** @type {Set<string>} recaps whose reveal has played on this screen (a re-render does not replay it) */
    this.revealed = new Set();
    /** @type {number|undefined} */
    this.stageTimer = undefined;
    /** @type {Set<string>} the players' names already shown (a newcomer's name arrives) */
    this.seen = new Set();
    /** @type {Record<string, number>} the piles' sizes last drawn (a pile that grew moves) */
    this.piles = {};

    // data-lm-suppress-shortcuts: JupyterLab / Notebook 7 (Lumino) run no notebook shortcut for a key
    // pressed on the root (focused by a click inside it) or on a control (h() marks every one).
    useCatalogue(model.get("i18n"));
    this.root = h("div", {
      class: `dw-root dw-kind-${this.kind}`, "data-testid": "dw-root", "data-lm-suppress-shortcuts": "true",
      tabindex: "-1", role: "region", "aria-label": t("Dichotomy"), // focused as a whole: a short name, not all its text
    });
    this.header = h("div", { class: "dw-header" });
    this.players = h("ul", { class: "dw-players", "aria-label": t("Players") });
    this.statusEl = h("p", {
      // on the projector the status line is the headline (said once, not repeated in the screen)
      class: this.kind === "table" ? "dw-status dw-big-status" : "dw-status", role: "status", "aria-live": "polite", "aria-atomic": "true",
      "data-testid": "dw-status",
    });
    this.notice = h("p", { class: "dw-notice", role: "alert" });
    // the table store cannot be written (full disk, read-only file): shown on every page until fixed
    this.trouble = h("p", { class: "dw-store-trouble", role: "alert", "data-testid": "dw-store-trouble", hidden: true });
    this.main = h("section", { class: "dw-main", "data-testid": "dw-main" });
    this.hostBar = h("div", { class: "dw-host", role: "group", "aria-label": t("Host controls") });
    // this screen's language (this student's screen only): a labelled select, each language in its own name
    const selectId = uid("lang");
    this.langSelect = /** @type {HTMLSelectElement} */ (h("select", { id: selectId, class: "dw-lang-select", "data-testid": "dw-lang" }));
    this.langLabel = h("label", { class: "dw-lang-label", for: selectId });
    this.langBox = h("div", { class: "dw-lang" }, this.langLabel, this.langSelect);
    this.langSelect.addEventListener("change", () => {
      const lang = this.langSelect.value;
      this.langSelect.value = String(this.model.get("lang") || "en"); // shown once the kernel agrees
      this.act({ type: "set_language", lang }, { slot: this.notice });
    });
    this.root.append(this.trouble, this.header, this.statusEl, this.players, this.notice, this.main, this.hostBar, this.langBox);
    el.append(this.root);
    /** The user acted in this widget, so its next screen may take focus (see mayTakeFocus). */
    this.focusOwed = false;
    this.hadFocus = false;
    this.installKeys();

    this.onChange = () => this.render();
    this.onTrouble = () => this.renderTrouble();
    this.onLanguage = () => this.relanguage();
    this.onMsg = (/** @type {any} */ msg) => this.receive(msg);
    for (const name of ["change:view", "change:curtain", "change:host", "change:name"]) model.on(name, this.onChange);
    model.on("change:store_trouble", this.onTrouble);
    for (const name of ["change:i18n", "change:lang"]) model.on(name, this.onLanguage);
    model.on("msg:custom", this.onMsg);
    this.renderLanguageMenu();
    this.render();
    this.renderTrouble();
  }

  /** Show (as text) or remove the store's trouble banner. */
  renderTrouble() {
    const text = String(this.model.get("store_trouble") || "");
    if (this.trouble.textContent !== text) this.trouble.textContent = text;
    this.trouble.hidden = !text;
  }

  destroy() {
    window.clearTimeout(this.viewTimer);
    window.clearInterval(this.checkTimer);
    for (const name of ["change:view", "change:curtain", "change:host", "change:name"]) this.model.off(name, this.onChange);
    this.model.off("change:store_trouble", this.onTrouble);
    for (const name of ["change:i18n", "change:lang"]) this.model.off(name, this.onLanguage);
    this.model.off("msg:custom", this.onMsg);
    if (this.clock !== undefined) window.clearInterval(this.clock);
    if (this.stageTimer !== undefined) window.clearTimeout(this.stageTimer);
    for (const p of this.pending.values()) window.clearTimeout(p.timer);
  }

  // --- talking to the kernel ----------------------------------------------------------------------

  /**
   * Send an intent; the button shows a busy state until the kernel answers.
   * @param {Record<string, any>} action
   * @param {ActUi} [ui]
   */
  act(action, ui = {}) {
    if (action.type === "continue") {
      const recap = /** @type {View|null} */ (this.model.get("view"))?.recap;
      if (recap) this.continued = recap.round;
      this.kept = null;
    }
    this.nextId += 1;
    const id = this.nextId;
    const button = ui.button || null;
    const input = ui.input || null;
    if (button) {
      if (button.getAttribute("aria-busy") === "true") return;
      button.setAttribute("aria-busy", "true");
      button.classList.add("dw-busy");
    }
    if (input) input.readOnly = true;
    if (action.type !== "expire") this.focusOwed = true; // a user's action: its result may take focus
    if (ui.slot) ui.slot.textContent = "";
    this.notice.textContent = "";
    const timer = window.setTimeout(() => {
      this.useLanguage();
      this.settle(id, t("No answer from the kernel yet. Is it still running? Try again."));
    }, REPLY_TIMEOUT_MS);
    this.pending.set(id, { button, slot: ui.slot || null, input, timer, type: String(action.type) });
    // The step of the game this click was made on: the kernel refuses it (stale_action) if that step
    // has ended meanwhile, instead of applying it to the next one (a double click, two tabs).
    const stage = (this.model.get("view") || {}).stage;
    this.model.send({ ...action, id, ...(typeof stage === "string" ? { stage } : {}) });
  }

  /** @param {any} msg */
  receive(msg) {
    if (!msg || typeof msg !== "object") return;
    if ("ack" in msg) this.settle(msg.ack, "");
    else if ("refused" in msg) {
      this.useLanguage();
      this.settle(msg.refused, String(msg.message || t("That did not work.")));
    }
  }

  /**
   * @param {any} id
   * @param {string} error
   */
  settle(id, error) {
    const p = this.pending.get(id);
    if (!p) return; // another browser's intent (a shared kernel) or already settled
    this.pending.delete(id);
    window.clearTimeout(p.timer);
    if (p.button) {
      p.button.removeAttribute("aria-busy");
      p.button.classList.remove("dw-busy");
    }
    if (p.input) p.input.readOnly = false;
    if (error) this.focusOwed = false; // refused: nothing changes, no new screen owes focus
    if (!error || p.type === "expire") return;
    const slot = p.slot && p.slot.isConnected ? p.slot : this.notice;
    slot.textContent = error;
    if (p.input && p.input.isConnected) {
      p.input.focus();
      p.input.select();
    }
  }

  // --- rendering ----------------------------------------------------------------------------------

  /**
   * Make this widget's catalogue the one `t` and `tn` read, and say the language on the page:
   * `lang` on the widget, and on the whole document in a voila page (not in JupyterLab or Notebook).
   */
  useLanguage() {
    const catalogue = this.model.get("i18n");
    useCatalogue(catalogue);
    const lang = String(this.model.get("lang") || active.lang || "en");
    if (this.root.getAttribute("lang") !== lang) this.root.setAttribute("lang", lang);
    if (!inNotebook() && document.documentElement.getAttribute("lang") !== lang) {
      document.documentElement.setAttribute("lang", lang);
    }
  }

  /** The language changed: every region is rebuilt in the new language. */
  relanguage() {
    for (const drawing of Object.values(this.drawings)) drawing.reset();
    this.hostBar.dataset.key = "";
    this.lastStatus = "";
    this.useLanguage();
    this.root.setAttribute("aria-label", t("Dichotomy"));
    this.players.setAttribute("aria-label", t("Players"));
    this.hostBar.setAttribute("aria-label", t("Host controls"));
    this.renderLanguageMenu();
    this.render();
    this.renderTrouble();
  }

  /**
   * No view yet: every VIEW_RETRY_MS ask the kernel to send it again, and draw whatever has arrived
   * meanwhile, so a missed update never leaves "Connecting to the table…" on screen for good.
   */
  awaitView() {
    if (this.viewTimer) return;
    this.viewTimer = window.setTimeout(() => {
      this.viewTimer = 0;
      const view = /** @type {View} */ (this.model.get("view") || {});
      if (!view.phase) this.model.send({ type: "send_view" });
      this.render();
    }, VIEW_RETRY_MS);
  }

  /**
   * Tell the kernel which view this screen shows (its version, or the curtain's): a screen that missed
   * an update (its view or curtain is behind the kernel's) gets every trait again, so it is not a phase
   * behind for good.
   */
  checkView() {
    const view = /** @type {View} */ (this.model.get("view") || {});
    const curtain = /** @type {Curtain} */ (this.model.get("curtain") || {});
    const version = view.phase ? view.version : curtain.version;
    if (typeof version === "number") this.model.send({ type: "send_view", version });
  }

  /** The language menu: the interface languages, each in its own name; changing it asks the kernel. */
  renderLanguageMenu() {
    const catalogue = /** @type {Catalogue} */ (this.model.get("i18n") || ENGLISH);
    const languages = catalogue.languages || [];
    const current = String(this.model.get("lang") || "en");
    this.langLabel.textContent = t("Language");
    const key = JSON.stringify([languages, current]);
    if (this.langSelect.dataset.key !== key) {
      this.langSelect.dataset.key = key;
      this.langSelect.replaceChildren(...languages.map(([code, name]) =>
        h("option", { value: code, lang: code, selected: code === current }, name)));
      this.langSelect.value = current;
    }
    this.langBox.hidden = languages.length < 2;
  }

  render() {
    this.useLanguage();
    this.hadFocus = this.root.contains(document.activeElement); // before anything is replaced
    const view = /** @type {View} */ (this.model.get("view") || {});
    const curtain = /** @type {Curtain} */ (this.model.get("curtain") || {});
    const curtainDown = this.kind === "pass" && curtain && typeof curtain.seat === "number";
    this.root.classList.toggle("dw-curtained", Boolean(curtainDown));
    if (curtainDown) {
      this.root.dataset.phase = "curtain";
      this.root.dataset.you = "";
      this.renderCurtain(curtain);
      return;
    }
    if (!view || !view.phase) {
      this.waitingSince = this.waitingSince || Date.now();
      const stalled = Date.now() - this.waitingSince >= VIEW_STALLED_MS;
      this.drawTitleOnly(stalled);
      this.setStatus(stalled ? t("The table has not answered for 30 seconds. Reloading the page connects this screen again.")
        : t("Connecting to the table…"), !stalled);
      this.awaitView();
      return;
    }
    window.clearTimeout(this.viewTimer);
    this.viewTimer = 0;
    this.waitingSince = 0;
    this.root.dataset.phase = view.phase;
    this.root.dataset.you = view.you ? view.you.name : "";
    if (view.phase === "gone") {
      this.drawTitleOnly();
      this.setStatus(view.status, false);
      return;
    }
    this.root.classList.toggle("dw-projector", this.kind === "table" && !this.model.get("host"));
    this.holdPiles(view);
    this.renderHeader(view);
    this.renderPlayers(view);
    this.followDraft(view);
    const kept = this.keptRecap(view);
    const mine = view.actions.length > 0 && view.you !== null;
    const waiting = !mine && !["lobby", "over"].includes(view.phase) && (view.phase !== "recap" || nextRoundStarted(view));
    const status = this.statusFor(view);
    this.setStatus(status, waiting);
    // the screen's own state beside the view: a readied draft, a kept recap, a finger or a pointer
    const own = ["view", this.kind, this.draft.queued, kept ? kept.round : null, touchScreen()];
    if (this.drawRegion("screen", this.main, view, own, (v) => [kept
      ? keptRecapScreen(kept, status, () => this.closeKept(), Boolean(this.keptUntil), v.led_by)
      : buildScreen(v, this.send, this.kind, this.ctx)])) {
      this.notice.textContent = "";
      this.takeFocus(/** @type {HTMLElement|null} */ (this.main.querySelector("[data-autofocus]")));
      this.stage(/** @type {HTMLElement|null} */ (this.main.querySelector(".dw-recap[data-staged]")));
      this.sendQueued(view);
    }
    this.fillProgress(view);
    this.renderHost(view);
    this.startClock(view, kept);
  }

  /**
   * Hold the header's piles at their sizes before the round while this screen's staged reveal of
   * the recap has not reached its outcome (App.stage lets go); a recap already revealed here, or
   * shown at once (reduced motion), holds nothing.
   * @param {View} view
   */
  holdPiles(view) {
    const r = view.recap;
    const playing = view.phase === "recap" && r && !nextRoundStarted(view) && !this.revealed.has(`${this.kind}:${r.round}`)
      && !lessMotion();
    if (playing && r) this.heldRound = r.round;
    else if (!r || this.heldRound !== r.round || view.phase !== "recap") this.heldRound = undefined;
  }

  /** The staged reveal reached its outcome: the piles move now. */
  releasePiles() {
    if (this.heldRound === undefined) return;
    this.heldRound = undefined;
    this.useLanguage();
    this.renderHeader(/** @type {View} */ (this.model.get("view") || {}));
  }

  /**
   * Draw region `name` (element `el`) from `data` with `build` when a value the last drawing read from
   * its data, or the region's own state `own`, has changed (see Drawing); true when it was drawn.
   * @param {"header"|"players"|"host"|"screen"} name @param {HTMLElement} el @param {any} data
   * @param {any[]} own @param {(data: any) => (Node|string)[]} build
   */
  drawRegion(name, el, data, own, build) {
    const drawing = this.drawings[name];
    if (!drawing.stale(data, own)) return false;
    el.replaceChildren(...drawing.draw(data, own, build));
    return true;
  }

  /**
   * Before a view (or once the table is gone): the title alone, no players, no screen; or, when the
   * screen has waited VIEW_STALLED_MS for its view (`stalled`), a button that reloads the page (its
   * address brings it back: a seat's link to its seat).
   * @param {boolean} [stalled]
   */
  drawTitleOnly(stalled = false) {
    this.drawRegion("header", this.header, {}, ["title"], () => [h("span", { class: "dw-title", text: t("Dichotomy") })]);
    this.drawRegion("players", this.players, {}, ["none"], () => []);
    this.drawRegion("screen", this.main, {}, [stalled ? "stalled" : "none"], () => (stalled ? [
      h("button", { type: "button", class: "dw-reload", onclick: () => window.location.reload() }, t("Reload the page")),
    ] : []));
  }

  /** The status line; the projector, which has no Continue, says where the recap is read. @param {View} view */
  statusFor(view) {
    if (this.kind !== "table" || this.model.get("host") || view.phase !== "recap") return view.status;
    const next = view.next;
    const picking = next && view.players.some((p) => p.seat === next.drawer.seat && p.confirmed);
    return picking ? t("{name} is picking a pair…", { name: next.drawer.name })
      : t("Round over: everyone reads the recap on their own screen.");
  }

  /**
   * The recap this seat keeps on screen: set while it is open and unread, dropped once this player
   * continues (here or in the engine) or the game is over. Returned only once the table has moved on.
   * @param {View} view
   * @returns {Recap|null}
   */
  keptRecap(view) {
    if (this.kind !== "seat" || !view.you) {
      this.kept = null;
      return null;
    }
    if (view.phase === "recap") {
      const read = view.players.some((p) => p.you && p.confirmed) || (view.recap && view.recap.round === this.continued);
      this.kept = read || !view.recap ? null : view.recap;
      this.keptUntil = this.kept && view.deadline ? view.deadline : null;
      return null;
    }
    if (!["reveal", "clues", "guess"].includes(view.phase)) this.kept = null;
    if (this.kept && (this.kept.round >= view.round || this.kept.round + 1 < view.round)) this.kept = null;
    if (this.kept && this.keptUntil && Date.now() / 1000 >= this.keptUntil) this.kept = null; // its countdown ended
    return this.kept;
  }

  /** Close the kept recap on this screen (a press of Continue, or its countdown: no focus owed then). */
  closeKept(byUser = true) {
    this.kept = null;
    this.keptUntil = null;
    if (byUser) this.focusOwed = true;
    this.render();
  }

  /**
   * A draft lives while this round's clues are written and this seat's clue is not in; it belongs to
   * one seat (a pass-and-play screen changes hands: the next writer never finds the last one's text).
   * @param {View} view
   */
  followDraft(view) {
    const key = `${view.round}:${view.you ? view.you.seat : ""}`;
    if (this.draft.key !== key || view.slate || view.phase !== "clues") {
      this.draft.key = key;
      this.draft.text = "";
      this.draft.queued = false;
    }
  }

  /** This seat's turn has come with a readied draft: send it now, through the clue box (checked then). @param {View} view */
  sendQueued(view) {
    if (!this.draft.queued || !view.actions.includes("clue")) return;
    const form = /** @type {HTMLFormElement|null} */ (this.main.querySelector("form.dw-entry"));
    const input = /** @type {HTMLInputElement|null} */ (this.main.querySelector("[data-testid=clue-input]"));
    this.draft.queued = false;
    if (!form || !input || !input.value.trim()) return;
    form.requestSubmit();
  }

  /**
   * The staged reveal: the recap's parts come in beat by beat (the pair, each clue turning over,
   * matching clues falling away with their reason, the guess, then the outcome). Once per recap per
   * screen; at once with reduced motion; a tap shows everything.
   * @param {HTMLElement|null} block
   */
  stage(block) {
    if (this.stageTimer !== undefined) window.clearTimeout(this.stageTimer);
    this.stageTimer = undefined;
    if (!block) {
      this.releasePiles();
      return;
    }
    const parts = /** @type {HTMLElement[]} */ ([...block.querySelectorAll("[data-beat]")]);
    const collides = /** @type {HTMLElement[]} */ ([...block.querySelectorAll("[data-collide]")]);
    const last = Math.max(0, ...parts.map((el) => Number(el.dataset.beat)));
    const id = `${this.kind}:${block.dataset.round}`;
    block.classList.add("dw-staged");
    const outcomeAt = Number((block.querySelector(".dw-outcome[data-beat]") || { getAttribute: () => last }).getAttribute("data-beat"));
    const show = (/** @type {number} */ step) => {
      block.dataset.step = step >= last ? "done" : String(step);
      for (const el of parts) if (Number(el.dataset.beat) <= step) el.classList.add("dw-in");
      for (const el of collides) if (Number(el.dataset.collide) <= step) el.classList.add("dw-collided");
      if (step >= outcomeAt) this.releasePiles(); // the cards move with the outcome
    };
    if (this.revealed.has(id) || lessMotion()) {
      show(last);
      return;
    }
    this.revealed.add(id);
    const collideAt = collides.length ? Number(collides[0].dataset.collide) : -1;
    const outcome = /** @type {HTMLElement|null} */ (block.querySelector(".dw-outcome[data-beat]"));
    let step = 0;
    const next = () => {
      step += 1;
      show(step);
      if (outcome && Number(outcome.dataset.beat) === step) chime(String(outcome.dataset.outcome));
      this.stageTimer = step < last ? window.setTimeout(next, step + 1 === collideAt ? 1100 : 750) : undefined;
    };
    next();
    block.addEventListener("click", () => {
      if (this.stageTimer !== undefined) window.clearTimeout(this.stageTimer);
      this.stageTimer = undefined;
      show(last);
    });
  }

  // --- keyboard and focus -------------------------------------------------------------------------
  //
  // In JupyterLab and Notebook 7 a notebook's command-mode shortcuts would act on keys pressed in an
  // output (b inserts a cell, d d deletes this one, m turns it into Markdown); the root and every
  // control carry data-lm-suppress-shortcuts, so the widget handles its keys itself: digits pick a
  // pair wherever focus is in the widget (not in a text box), Enter submits a text box (an explicit
  // handler, see entry), Enter and Space press the focused button (the browser; Shift+Enter does not), Escape takes back an
  // armed "nothing typed" confirmation.
  //
  // Focus moves only in response to this widget's own user: when focus is in this widget as its screen
  // changes, or when the user acted here and the result removed the focused control (focus fell to the
  // page). Never because a view changed under someone working elsewhere: a notebook cell, another
  // widget (another seat in a shared kernel), another client, or a Run All.

  installKeys() {
    this.root.addEventListener("keydown", (ev) => this.onKey(/** @type {KeyboardEvent} */ (ev)));
    // Lumino (JupyterLab, Notebook 7) matches a notebook shortcut's selector (".jp-Notebook.jp-mod-
    // commandMode :focus") on the focused element itself before its ancestors: whatever takes focus in
    // the widget (a button, a box, a <summary>, anything focusable now or later) is marked as it does.
    this.root.addEventListener("focusin", (ev) => {
      if (ev.target instanceof Element) ev.target.setAttribute("data-lm-suppress-shortcuts", "true");
    });
  }

  /** @param {KeyboardEvent} ev */
  onKey(ev) {
    if (ev.defaultPrevented || ev.isComposing || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const target = /** @type {HTMLElement} */ (ev.target);
    // Shift+Enter is a notebook's "run this cell": on a focused button it presses nothing
    if (ev.key === "Enter" && ev.shiftKey && target.closest("button")) { ev.preventDefault(); return; }
    const typing = target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
    if (typing || !/^[1-9]$/.test(ev.key)) return;
    const pair = /** @type {HTMLButtonElement|null} */ (this.main.querySelector(`.dw-pairs button[data-pair="${ev.key}"]`));
    if (pair) {
      ev.preventDefault();
      pair.focus({ preventScroll: true });
      pair.click();
    }
  }

  /** May this render move focus onto its new screen? (The rule above.) */
  mayTakeFocus() {
    const active = document.activeElement;
    const fell = !active || active === document.body;
    return Boolean(this.hadFocus || this.root.contains(active) || (this.focusOwed && fell));
  }

  /**
   * Focus the new screen's first control when the rule allows (a screen without one keeps focus on
   * the widget itself, not the page); the user's action is then answered.
   * @param {HTMLElement|null} target
   */
  takeFocus(target) {
    if (this.mayTakeFocus()) {
      const el = target || (this.root.contains(document.activeElement) ? null : this.root);
      if (el) el.focus({ preventScroll: true });
    }
    this.focusOwed = false;
  }

  /**
   * @param {string} text
   * @param {boolean} waiting
   */
  setStatus(text, waiting) {
    this.statusEl.classList.toggle("dw-waiting", waiting);
    if (text !== this.lastStatus) {
      this.lastStatus = text;
      this.statusEl.textContent = text; // the live region announces only real changes
    }
  }

  /** @param {View} view */
  renderHeader(view) {
    if (this.heldRound !== undefined && view.recap && view.recap.round === this.heldRound) {
      view = { ...view, ...pilesBefore(view.recap) };
    }
    this.drawRegion("header", this.header, view, ["view", this.kind, String(this.model.get("name") || "")],
      (v) => this.headerParts(v));
  }

  /** @param {View} view */
  headerParts(view) {
    const title = h("span", { class: "dw-title" }, t("Dichotomy"),
      view.you ? h("span", { class: "dw-you", text: ` · ${view.you.name}` }) : "");
    const lobby = view.phase === "lobby";
    const name = this.kind === "table" ? String(this.model.get("name") || view.table || "") : "";
    const code = name ? h("span", { class: "dw-code", "data-testid": "table-name", text: t("Table {code}", { code: name }) }) : "";
    const hide = this.kind === "pass" && view.you
      ? h("button", { class: "dw-button dw-quiet", type: "button", onclick: () => this.act({ type: "hide" }) }, t("Hide my screen"))
      : "";
    const playing = ["reveal", "clues", "guess"].includes(view.phase);
    // still to play: the card in play counts (the view's deck_left is the cards after it)
    const toPlay = lobby ? view.rounds : view.deck_left + (playing ? 1 : 0);
    const last = toPlay === 1 && (playing || (view.phase === "recap" && Boolean(view.next)));
    const sizes = { score: view.score, discard: view.discard, deck: toPlay };
    const grew = (/** @type {string} */ name) => name in this.piles && sizes[name] > this.piles[name];
    const piles = h("span", { class: "dw-piles", role: "group", "aria-label": t("Cards") },
      pile(t("Kept"), view.score, "score", grew("score")),
      pile(t("Discarded"), view.discard, "discard", grew("discard")),
      pile(t("Still to play"), toPlay, "deck", false),
      last ? h("span", { class: "dw-last-card", "data-testid": "last-card", text: t("Last card!") }) : "");
    this.piles = sizes;
    const stats = h("span", { class: "dw-stats" },
      view.phase === "over" // a penalty can end the game before its last round: no "Round 2 of 3"
        ? stat(t("Rounds played"), num((view.history || []).length), "round")
        : stat(t("Round"), lobby ? t("– of {rounds}", { rounds: view.rounds })
          : t("{round} of {rounds}", { round: view.round, rounds: view.rounds }), "round"), piles);
    return [title, code, stats, hide];
  }

  /** @param {View} view */
  renderPlayers(view) {
    this.drawRegion("players", this.players, view, ["view"], (v) => this.playerItems(v));
  }

  /** @param {View} view */
  playerItems(view) {
    const next = view.next;
    const items = view.players.map((p) => {
      const guesser = p.guesser || Boolean(next && next.guesser.seat === p.seat);
      const drawer = p.drawer || Boolean(next && next.drawer.seat === p.seat);
      // the next Drawer who has read the recap is already picking: the Drawer now, not "next"
      const picking = Boolean(next && next.drawer.seat === p.seat && p.confirmed);
      const badges = [];
      if (guesser) badges.push(h("span", { class: "dw-badge dw-badge-guesser", text: p.guesser ? t("Guesser") : t("Next guesser") }));
      if (drawer) badges.push(h("span", { class: "dw-badge dw-badge-drawer", text: p.drawer || picking ? t("Drawer") : t("Next drawer") }));
      const mark = p.clue || (view.phase === "recap" && p.confirmed ? "confirmed" : "");
      const state = mark ? markChip(mark, `dw-mark dw-mark-${mark === "confirmed" ? "submitted" : mark}`)
        : h("span", { class: "dw-mark" });
      const arrived = this.seen.size > 0 && !this.seen.has(p.name); // a classmate who just joined
      this.seen.add(p.name);
      return h("li", {
        class: `dw-player${arrived ? " dw-new" : ""}${p.you ? " dw-me" : ""}${p.turn ? " dw-turn" : ""}${guesser ? " dw-is-guesser" : ""}`,
        "data-seat": p.seat, "data-testid": `player-${p.name}`,
      }, h("span", { class: "dw-name", text: p.you ? t("{name} (you)", { name: p.name }) : p.name }), ...badges, state);
    });
    return items;
  }

  /** @param {View} view */
  renderHost(view) {
    if (this.kind === "pass") {
      this.renderEndOnly(Boolean(view.you) || ["lobby", "over"].includes(view.phase));
      return;
    }
    if (this.kind !== "table" || !this.model.get("host")) {
      this.hostBar.replaceChildren();
      this.hostBar.dataset.key = "";
      this.hostBar.hidden = true;
      this.drawings.host.reset();
      return;
    }
    this.hostBar.hidden = false;
    // The bar is drawn again only when a value its buttons and seat rows read changes; a new label (whose
    // turn it is, who has not read the recap) goes onto the same button, so a press in progress is not lost.
    if (!this.drawRegion("host", this.hostBar, view, ["host"], (v) => this.hostBarParts(v))) {
      hostSpecs(view).forEach((s, i) => { if (this.hostButtons[i]) relabel(this.hostButtons[i], s.label); });
    }
  }

  /** The host bar: a button per host action, and the lobby's seat rows. @param {View} view */
  hostBarParts(view) {
    const slot = errorSlot();
    // the labels are refreshed in place: read untracked, they do not redraw the bar
    const specs = hostSpecs(view, untracked(view));
    const buttons = specs.map(({ type, label, confirm }) =>
      actionButton(this.send, { label, confirm, action: { type }, slot, cls: "dw-button dw-host-button" }));
    this.hostButtons = buttons;
    return [h("span", { class: "dw-host-label", text: t("Host") }), ...buttons, ...seatControls(view, this.send, slot), slot];
  }

  /**
   * Pass-and-play: a quiet "End the game" (asks twice) on public screens and under the curtain.
   * @param {boolean} hide
   */
  renderEndOnly(hide) {
    this.hostBar.hidden = hide;
    this.drawings.host.reset();
    if (hide) {
      this.hostBar.replaceChildren();
      this.hostBar.dataset.key = "";
      return;
    }
    if (this.hostBar.dataset.key === "end") return;
    this.hostBar.dataset.key = "end";
    const slot = errorSlot();
    this.hostBar.replaceChildren(actionButton(this.send, {
      label: t("End the game"), confirm: endConfirm(), action: { type: "end" }, slot, cls: "dw-button dw-quiet",
    }), slot);
  }

  /** Pass-and-play: the curtain before a private screen names whose it is. @param {Curtain} curtain */
  renderCurtain(curtain) {
    this.drawRegion("header", this.header, curtain, ["curtain"], (c) => [
      h("span", { class: "dw-title", text: t("Dichotomy") }),
      h("span", { class: "dw-stats" }, stat(t("Round"), t("{round} of {rounds}", { round: c.round, rounds: c.rounds })),
        stat(t("Score"), num(c.score)))]);
    this.drawRegion("players", this.players, {}, ["none"], () => []);
    this.renderEndOnly(false);
    this.setStatus(t("Hand the screen to {name}.", { name: curtain.name }), false);
    // each curtain (its version) is drawn afresh, its button focused
    /** @type {HTMLButtonElement|null} */
    let lift = null;
    const drawn = this.drawRegion("screen", this.main, curtain, ["curtain", curtain.version], (c) => {
      const slot = errorSlot();
      const button = /** @type {HTMLButtonElement} */ (h("button", {
        class: "dw-curtain-button", type: "button", "data-autofocus": true, "data-testid": "curtain",
      },
      h("span", { class: "dw-curtain-big", text: t("Hand the screen to {name}, then tap to show", { name: c.name }) }),
      h("span", { class: "dw-curtain-small", text: t("{name}: it is your turn to {task}.", { name: c.name, task: c.task }) })));
      const seat = c.seat;
      button.addEventListener("click", () => this.act({ type: "lift", seat }, { button, slot }));
      const guesserNote = c.guesser && c.guesser !== c.name
        ? h("p", { class: "dw-curtain-note", text: t("{name} is guessing this round: {name}, look away until you are called.", { name: c.guesser }) })
        : "";
      lift = button;
      return [h("div", { class: "dw-curtain" }, button, guesserNote, slot)];
    });
    if (!drawn) return;
    this.notice.textContent = "";
    this.takeFocus(lift);
  }

  /** @param {View} view */
  fillProgress(view) {
    for (const slot of this.main.querySelectorAll(".dw-progress-slot")) {
      const clock = view.deadline && view.phase === "clues"
        ? h("p", { class: "dw-clock", "aria-live": "off", "data-testid": "clock" }) : "";
      slot.replaceChildren(progressList(view), clock);
    }
  }

  /**
   * A countdown while a writer has a time limit (the writer's screen reports the expiry), or while a
   * recap with the host's countdown is read: at 0 a reader's screen asks the engine to continue for
   * everyone still reading (the engine checks the time), and a kept recap closes on this screen.
   * @param {View} view @param {Recap|null} kept
   */
  startClock(view, kept) {
    if (this.clock !== undefined) window.clearInterval(this.clock);
    this.clock = undefined;
    const recap = kept ? this.keptUntil : view.phase === "recap" && !nextRoundStarted(view) ? view.deadline : null;
    const deadline = recap || (view.phase === "clues" ? view.deadline : null);
    if (!deadline) return;
    const tick = () => {
      this.useLanguage();
      const left = Math.max(0, Math.ceil(deadline - Date.now() / 1000));
      const text = recap ? tn("The next round starts in {n} second", "The next round starts in {n} seconds", left)
        : view.actions.includes("clue") ? tn("You have {n} second left", "You have {n} seconds left", left)
          : tn("{name} has {n} second left", "{name} has {n} seconds left", left, { name: playerName(view, (p) => p.turn) });
      for (const el of this.main.querySelectorAll(".dw-clock")) el.textContent = text;
      if (left > 0 || this.expireSentFor === deadline) return;
      if (kept) {
        window.clearInterval(this.clock);
        this.clock = undefined;
        this.closeKept(false);
      } else if (view.actions.includes(recap ? "continue" : "clue")) {
        this.expireSentFor = deadline;
        window.setTimeout(() => this.act({ type: "expire" }), recap ? 0 : 1000);
      }
    };
    tick();
    this.clock = window.setInterval(tick, 1000);
  }
}

/**
 * One pile of cards drawn as a stack (up to six cards high) with its count and name; `moved` plays
 * the arrival of a card.
 * @param {string} label @param {number} n @param {string} name its `data-stat` @param {boolean} moved
 */
function pile(label, n, name, moved) {
  return h("span", { class: `dw-pile dw-pile-${name}${moved ? " dw-moved" : ""}`, "data-stat": name },
    h("span", { class: "dw-pile-stack", "data-n": Math.min(n, 6), "aria-hidden": "true" }),
    h("span", { class: "dw-stat-value", text: num(n) }), " ", h("span", { class: "dw-stat-label", text: label }));
}

/**
 * One header number: "Round 2 of 13".
 * @param {string} label
 * @param {string|number} value
 * @param {string} [name] its `data-stat`
 */
function stat(label, value, name) {
  return h("span", { class: "dw-stat", "data-stat": name || null },
    h("span", { class: "dw-stat-label", text: label }), " ",
    h("span", { class: "dw-stat-value", text: String(value) }));
}

/**
 * True outside a voila page (JupyterLab, Notebook 7, the classic Notebook): the page is not ours to
 * label with a language. Voila marks its page's body with `data-voila`.
 */
function inNotebook() {
  return !(document.body && document.body.dataset.voila);
}

/** True on a screen used with a finger (a phone, a tablet): no keys to press, "tap" not "click". */
function touchScreen() {
  return typeof window.matchMedia === "function" && window.matchMedia("(hover: none) and (pointer: coarse)").matches;
}

/** True when the reader asked for less motion: the staged reveal shows everything at once. */
function lessMotion() {
  return typeof window.matchMedia === "function" && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** @param {{model: Model, el: HTMLElement}} ctx */
function render({ model, el }) {
  const app = new App(model, el);
  return () => app.destroy();
}

export default { render };
