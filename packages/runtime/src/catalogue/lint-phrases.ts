/**
 * The phrase model of the poisoning lint: what text aimed at the model says, as classes of verbs
 * and objects rather than fixed sentences. "Ignore previous instructions" is one verb of the
 * override class (ignore, disregard, forget, bypass, do not follow, pay no attention to, ...)
 * before one object of the instruction class (the previous / the user's / the system's
 * instructions, prompt, rules, guidelines, everything above, ...), so its paraphrases are found
 * too. Patterns run on `normalise`d text. Data and small matchers only; `catalogue-lint.ts` applies them.
 */

/** What a phrase rule found, at an index of the normalised text. */
export interface PhraseHit {
  readonly rule: "hidden-instructions" | "secret-access" | "other-tools-data";
  readonly severity: "high" | "medium" | "low";
  readonly message: string;
  readonly index: number;
  readonly length: number;
  /** The index is in the `flow` text (line breaks as spaces) rather than the sentence text. */
  readonly inFlow: boolean;
}

/** Where the text sits: a parameter named like a credential describes that credential. */
export interface PhraseContext {
  /** The text is the description of a parameter whose name is a credential's (`token`, `apiKey`). */
  readonly credentialParameter: boolean;
  /** The entry has a parameter named like a credential, so its description may explain it. */
  readonly hasCredentialParameter: boolean;
}

const words = (list: string) =>
  list
    .trim()
    .split(/\s*\|\s*/)
    .join("|");

// Override class: verbs (imperative, or after "you must/should/will ...") and objects.
const OVERRIDE_VERB = words(`
  ignore | disregard | forget | forget about | override | overrule | bypass | circumvent | skip | discard | dismiss |
  abandon | drop | neglect | nullify | void | cancel | revoke | supersede | set aside | put aside | throw out | toss out |
  pay no attention to | pay no heed to | take no notice of | turn a blind eye to | no longer follow | stop following |
  stop obeying | stop listening to | stop applying | break free of | break free from | escape | unlearn | erase | wipe`);
const FOLLOW_VERB = words(
  "follow | obey | comply with | adhere to | listen to | heed | respect | honor | honour | apply | abide by | stick to | stay within | be bound by | care about | consider | use",
);
const NEGATION = words(
  "do not | don't | dont | never | must not | mustn't | should not | shouldn't | cease to | refuse to | no need to | no longer",
);
/** Words that may stand between the verb and the instruction noun. */
const QUALIFIER = words(`
  all | any | every | each | of | the | your | you | my | our | their | these | those | such | prior | previous | previously |
  preceding | above | earlier | former | original | initial | old | existing | current | given | system | system's | developer |
  developer's | safety | default | other | user | user's | users | users' | human's | assistant's | and | or | given | provided |
  stated | received | written | set | loaded | built-in | internal | core | base | standing | real | actual | that | were | you've |
  been | told | before | so | far | first | content | policy | security | operator's | operator | model's | ai's | instruction`);
/** Nouns that are instructions on their own. */
const STRONG_NOUN = words(`
  instructions | instruction | system prompts | system prompt | system messages | system message | prompts | prompt |
  guidelines | guideline | directives | directive | guardrails | programming | rules | rule | directions | guidance |
  commands | orders | constraints | policies | policy | restrictions | context | messages | training | safeguards |
  protections | limitations | boundaries | requests | request | wishes | settings | configuration | preferences | task`);
const INSTRUCTIONS = `(?:(?:${QUALIFIER})\\s+){0,6}(?:${STRONG_NOUN})\\b`;
/** Qualifiers that make any of the nouns above an attack on what came before. */
const PRIOR =
  /\b(?:prior|previous(?:ly)?|preceding|above|earlier|former|original|initial|system'?s?|developer'?s?|safety|security|user'?s?|users'|human's|operator'?s?|all|any|every|your|built-in|internal|core|standing|before)\b/;
/** Objects that need no noun: "everything above", "what you were told". */
const EVERYTHING = `(?:everything|anything|all|whatever|what)\\s+(?:(?:that|which|you|were|have|had|been|you've|was|is|i|the|user|system|has|above|before|earlier|previously|prior|so|far|said|written|stated|told|given|asked|instructed|of|preceding|in|this|conversation|context)\\s+){0,5}(?:above|before|earlier|previously|prior|so far|said|written|stated|told|given|asked|instructed|preceding)\\b`;

/** What an overridden instruction is said to have become. */
const VOID =
  "void|null|nullified|cancell?ed|revoked|obsolete|outdated|invalid|invalidated|overridden|superseded|replaced|suspended|lifted|disabled|expired|irrelevant|inactive|deleted|erased|withdrawn|no longer (?:valid|applicable|relevant|in effect|in force|binding|active)";
/** A weak noun followed by what points back at earlier text: "the rules you were given earlier". */
const PRIOR_AFTER =
  /^\s*(?:that\s+|which\s+)?(?:you\s+(?:were|have been|'ve been|got|received)|(?:given|provided|received|stated|set|written)\s+(?:to you\s+)?(?:earlier|before|previously|above|so far)|(?:above|earlier|before|so far|previously))\b/;
const STRONG_LAST = new RegExp(`\\b(?:${STRONG_NOUN})$`);
const PRIOR_EVERYTHING = /\b(?:above|before|earlier|previously|prior|preceding|told|instructed|said|asked)\b/;

const OVERRIDE: readonly RegExp[] = [
  new RegExp(`\\b(?:${OVERRIDE_VERB})\\b(?:\\s+\\S+){0,4}?\\s+(${INSTRUCTIONS}|${EVERYTHING})`),
  new RegExp(
    `\\b(?:${NEGATION})\\s+(?:(?:longer|ever|again|even|really|actually|now|anymore)\\s+)?(?:${FOLLOW_VERB})\\b(?:\\s+\\S+){0,3}?\\s+(${INSTRUCTIONS}|${EVERYTHING})`,
  ),
  // Third person and passive: "previous instructions are void", "this overrides all prior rules".
  new RegExp(
    `\\b(?:ignores|disregards|overrides|overrules|supersedes|replaces|cancels|voids|invalidates|nullifies|trumps|takes precedence over|outranks)\\s+(${INSTRUCTIONS})`,
  ),
  new RegExp(
    `(${INSTRUCTIONS}|${EVERYTHING})(?:\\s+\\S+){0,3}?\\s+(?:is|are|were|has been|have been|becomes|become)\\s+(?:now\\s+|hereby\\s+|all\\s+)?(?:${VOID})\\b`,
  ),
  new RegExp(
    `(${INSTRUCTIONS}|${EVERYTHING})(?:\\s+\\S+){0,3}?\\s+(?:no longer|do not|don't|does not|doesn't|shall not|will not|won't)\\s+(?:apply|applies|matter|matters|count|counts|hold|holds|bind|binds|exist|exists)\\b`,
  ),
  // "Consider the prior context cancelled", "treat previous directives as null and void".
  new RegExp(
    `\\b(?:consider|treat|regard|deem|mark|count|take)\\s+(${INSTRUCTIONS}|${EVERYTHING})\\s+(?:as\\s+)?(?:now\\s+|being\\s+)?(?:${VOID})\\b`,
  ),
  new RegExp(`\\byou(?:\\s+are|'re|\\s+re)\\s+(?:no longer|not)\\s+(?:bound|restricted|limited|constrained)\\s+by\\s+(${INSTRUCTIONS})`),
];

/** Taking over the model's role or inserting a fake higher-priority message. */
const ROLE: readonly RegExp[] = [
  /\b(?:you are now|from now on,? you|you must now act|you will now act|act as an? (?:unrestricted|unfiltered|jailbroken)|developer mode (?:enabled|on))\b/,
  /\b(?:new|updated|real|actual|true|revised|secret|hidden|override|priority|additional|important|system|admin) (?:instructions?|directives?|orders|rules|prompt|commands?)\s*[.:]/,
  /\b(?:this is an? (?:system|admin|developer|priority) (?:message|instruction|notice)|(?:begin|start|end) (?:of )?system (?:prompt|message|instructions?))\b/,
  /\b(?:these|the following|my|this tool's|this) (?:instructions|rules|directions) (?:take precedence|take priority|come first|override|supersede|replace|outrank)\b/,
];

/** Hiding things from the user. */
const HIDING: readonly RegExp[] = [
  /\b(?:do not|don't|dont|never|must not|mustn't|should not|shouldn't|avoid|refrain from|no need to|without)\s+(?:\w+\s+){0,3}?(?:tell(?:ing)?|inform(?:ing)?|mention(?:ing)?|reveal(?:ing)?|show(?:ing)?|disclos(?:e|ing)|alert(?:ing)?|notify(?:ing)?|warn(?:ing)?|report(?:ing)?|let(?:ting)?|explain(?:ing)?|ask(?:ing)?|surfac(?:e|ing)|display(?:ing)?|bring(?:ing)?|rais(?:e|ing)|flag(?:ging)?|brief(?:ing)?|updat(?:e|ing)|remind(?:ing)?)\b(?:\s+\S+){0,6}?\s+(?:the\s+)?(?:user|users|human|operator|person|customer|client|owner|anyone|anybody|them)\b/,
  /\bwithout\s+(?:the\s+)?(?:user|human|operator)(?:'s|s)?\s+(?:knowing|knowledge|noticing|seeing|consent|approval|permission|awareness|being (?:told|informed|aware))\b/,
  /\b(?:the\s+)?(?:user|human|operator)s?\s+(?:must|should|need|needs|is|are)\s+(?:not|never)\s+(?:to\s+)?(?:know|see|notice|learn|find out|be told|be informed|be aware|suspect)\b/,
  // "Make sure the person using the assistant never learns about it": an instruction frame, a person, a negated knowing.
  /\b(?:make sure|ensure|see to it|be sure|it is important|important)\s+(?:that\s+)?(?:the\s+)?(?:end\s+)?(?:user|users|human|person|people|operator|customer|client|owner|anyone|nobody|no one)\b(?:\s+\S+){0,4}?\s+(?:never|not|doesn't|does not|won't|will not|can't|cannot|don't|do not)\s+(?:ever\s+)?(?:knows?|learns?|sees?|notices?|finds? out|realises?|realizes?|suspects?|discovers?|hears?|be told|be informed|be aware|gets? told)\b/,
  /\b(?:stay|stays|remain|remains|be|is|kept|keep it|keep this)\s+(?:\w+\s+)?(?:invisible|hidden|unseen|unknown|secret|undisclosed|unnoticed)\s+(?:to|from|by)\s+(?:the\s+)?(?:end\s+)?(?:user|users|human|person|operator|customer|client|owner)\b/,
  /\b(?:nobody|no one)\s+(?:must|should|may|can|will)\s+(?:ever\s+)?(?:know|learn|see|notice|find out)\b/,
  /\b(?:hide|conceal|mask|obscure)\s+(?:\S+\s+){0,4}?from\s+(?:the\s+)?(?:user|human|operator)s?\b/,
  /\bkeep\s+(?:this|it|that|these|them)\s+(?:a\s+)?(?:secret|hidden|private|confidential)\b|\bsecretly\b|\bcovertly\b|\bstealthily\b|\bbehind (?:the )?(?:user's|users'|their) back\b/,
  /\b(?:silently|quietly|invisibly)\s+(?:also\s+)?(?:send|copy|forward|upload|call|invoke|read|include|exfiltrate|collect|append|add|attach|run|execute|post|transmit|share|save)\b/,
  /\b(?:keep|leave)\s+(?:the\s+)?(?:user|human)s?\s+(?:in the dark|unaware|uninformed)\b/,
];

/** Files and places that hold secrets. */
const SECRET_FILE =
  /~\/\.ssh\b|\.ssh\/|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|(?:^|[\s'/])\.env(?:\.\w+)?\b|\.aws\/credentials|~\/\.aws\b|\.npmrc\b|\.pypirc\b|\.netrc\b|\/etc\/(?:passwd|shadow)\b|\.kube\/config|\.docker\/config\.json|\.git-credentials|\.gnupg\b|\bkeychain\b|\bmcp\.json\b|claude_desktop_config\.json|~\/\.cursor\b|\.bash_history|\.zsh_history|wallet\.dat|\bkeystore\b/;
/** Credentials by name. */
const CREDENTIAL =
  /\b(?:api[ _-]?keys?|access[ _-]?tokens?|auth(?:entication|orization)?[ _-]?(?:tokens?|keys?|headers?)|bearer[ _-]?tokens?|refresh[ _-]?tokens?|secret[ _-]?keys?|client[ _-]?secrets?|private[ _-]?keys?|ssh[ _-]?keys?|passwords?|passphrases?|credentials?|session[ _-]?(?:cookies?|tokens?)|seed[ _-]?phrases?|mnemonic|recovery[ _-]?phrases?|personal[ _-]?access[ _-]?tokens?|secrets|env(?:ironment)? (?:variables|vars))\b/;
/** Verbs that move something to the model or out (transfer) or open it (read). */
const READ_VERB =
  /\b(?:read|reads|cat|open|load|include|attach|append|send|pass|copy|upload|forward|paste|provide|extract|dump|print|output|return|post|embed|collect|exfiltrate|share|leak|grab|fetch|retrieve|get|obtain|look up|find|add|put|insert|supply|give|enter|fill|submit|transmit|email|contents? of|echo)\b/;
const TRANSFER_VERB =
  /\b(?:include|attach|append|send|pass|copy|upload|forward|paste|provide|extract|dump|print|output|return|post|embed|collect|exfiltrate|share|leak|grab|retrieve|obtain|add|put|insert|supply|give|enter|submit|transmit|email|echo|reveal|disclose)\b/;
/** A verb is not a request when negated ("do not include any API keys") or passive ("the token is sent"). */
const NOT_A_REQUEST =
  /\b(?:do not|don't|dont|never|must not|mustn't|should not|shouldn't|cannot|can't|won't|not|no|avoid|without|is|are|be|been|being|was|were|gets|get|will be|is never|are never)\s+(?:\w+\s+)?$/;
const UNLESS_REQUEST = /\b(?:don't|do not) (?:forget|fail|hesitate) to\s*$/;

/** Other tools' data or the conversation, and data sent elsewhere. */
const OTHER_DATA =
  /\b(?:(?:other|all|every|previous|earlier|another)\s+tools?'?s?\s*(?:results?|outputs?|responses?|data|descriptions?|arguments?)|(?:conversation|chat|message|prompt)\s+(?:history|log|transcript)|previous\s+(?:messages|conversation|turns)|(?:entire|whole|full)\s+(?:conversation|context|chat|transcript|system prompt)|(?:your|the)\s+system\s+prompt)\b/;
const SEND_VERB = /\b(?:send|forward|upload|post|exfiltrate|transmit|copy|bcc|cc|email|mail|report|leak|submit)\b/;
const SEND_OUT =
  /\b(?:send|forward|upload|post|exfiltrate|transmit|copy|bcc|cc|email|mail|report|leak|submit)\b(?:\s+\S+){0,10}?\s+(?:to|at|into|via)\s+(?:https?:\/\/|[\w.+-]+@[\w-]+\.[\w.]+)/;
/** What is sent out: the user's data, not an HTTP request ("send a GET request to https://..." is what an HTTP tool does). */
const SENT_DATA =
  /\b(?:results?|outputs?|responses?|answers?|data|conversation|chat|history|transcript|contents?|files?|secrets?|tokens?|keys?|credentials?|passwords?|messages|summary|it|them|this|everything|all|emails?|documents?|notes|context|logs?|copy)\b/;

/** The verb of `verb` in the text before `object`'s position in its sentence, if it is a real request. */
function requestBefore(sentence: string, offset: number, verb: RegExp): boolean {
  const flags = verb.flags.includes("g") ? verb.flags : `${verb.flags}g`;
  const all = new RegExp(verb.source, flags);
  for (let m = all.exec(sentence); m !== null; m = all.exec(sentence)) {
    if (m.index > offset + 200) break;
    const before = sentence.slice(Math.max(0, m.index - 40), m.index);
    if (NOT_A_REQUEST.test(before) && !UNLESS_REQUEST.test(before)) continue;
    return true;
  }
  return false;
}

function sentenceOf(text: string, index: number): { sentence: string; offset: number } {
  const start = text.lastIndexOf(". ", index) + 1;
  const endAt = text.indexOf(". ", index);
  return { sentence: text.slice(start, endAt < 0 ? text.length : endAt), offset: index - start };
}

function first(patterns: readonly RegExp[], text: string): RegExpExecArray | null {
  for (const p of patterns) {
    const m = p.exec(text);
    if (m) return m;
  }
  return null;
}

/** Every phrase finding in normalised text, at most one per rule and severity. */
export function matchPhrases(text: string, context: PhraseContext, flow = text): PhraseHit[] {
  const hits: PhraseHit[] = [];
  const hit = (
    rule: PhraseHit["rule"],
    severity: PhraseHit["severity"],
    message: string,
    m: { index: number; 0: string },
    inFlow = false,
  ) =>
    hits.push({ rule, severity, message: `${message}: ${JSON.stringify(m[0].slice(0, 80))}`, index: m.index, length: m[0].length, inFlow });

  // Instructions to the model are matched in `flow` (line breaks as spaces): breaking the phrase
  // over lines must not break the match. Index and length then point into `flow`.
  const hidden = first(HIDING, flow);
  if (hidden) hit("hidden-instructions", "high", "tells the model to hide something from the user", hidden, true);
  const override = overrideAt(flow) ?? overrideInSentence(flow);
  if (override) hit("hidden-instructions", "high", "tells the model to set aside its or the user's instructions", override, true);
  else {
    const role = first(ROLE, flow);
    if (role) hit("hidden-instructions", "high", "poses as a higher-priority instruction or a new role for the model", role, true);
  }
  secretHits(text, context, hit);
  const other = OTHER_DATA.exec(text);
  if (other) {
    const { sentence, offset } = sentenceOf(text, other.index);
    if (requestBefore(sentence, offset, READ_VERB))
      hit("other-tools-data", "medium", "asks for other tools' data or the conversation", other);
  }
  const out = SEND_OUT.exec(text);
  if (out) {
    const { sentence, offset } = sentenceOf(text, out.index);
    if (SENT_DATA.test(out[0]) && requestBefore(sentence.slice(0, offset + out[0].length), offset, SEND_VERB))
      hit("other-tools-data", "medium", "asks to send data to an outside address", out);
  }
  return hits;
}

/**
 * The looser form of the override model: a verb of the class and an instruction object anywhere in
 * one sentence, in either order ("Above instructions: discard them", "put your prior constraints
 * on hold"). The object must point at the model's own instructions (your, the system's, the
 * developer's, previous, above, ...), so "delete the previous firewall rules" is not one.
 */
const LOOSE_VERB = new RegExp(
  `\\b(?:${OVERRIDE_VERB}|overwrite|suspend|on hold|disable|turn off|switch off|lift|zero|(?:not|never|no longer|don't|do not|stop)\\s+(?:\\w+\\s+){0,2}?(?:${FOLLOW_VERB}|bring\\s+\\S+\\s+up)|(?:are|is|were|be|been)\\s+(?:now\\s+|hereby\\s+)?(?:${VOID}))\\b`,
);
const MODEL_OWNED =
  /\b(?:your|you were|you've been|you have been|given to you|the (?:developer|system|operator|assistant|model|ai)(?:'s)?|(?:developer|system|operator)'s|(?:previous|prior|preceding|above|earlier|former|original|initial|existing|standing|built-in|internal|core)(?:ly)?)\s+(?:\S+\s+){0,3}?(?:instructions?|system prompts?|prompts?|guidelines?|guidance|directives?|guardrails|programming|rules|constraints|restrictions|policies|directions|orders|commands|safeguards)\b|\b(?:instructions?|guidance|guidelines|rules|directives|constraints|directions)\s+(?:that\s+)?(?:the (?:developer|system|operator)\s+)?(?:gave you|you were given|given to you|you got|you received|above|from before)\b/;

function overrideInSentence(text: string): { index: number; 0: string } | null {
  for (const sentence of text.split(". ")) {
    const object = MODEL_OWNED.exec(sentence);
    if (!object) continue;
    const verb = LOOSE_VERB.exec(sentence);
    if (!verb) continue;
    const start = Math.min(verb.index, object.index);
    const end = Math.max(verb.index + verb[0].length, object.index + object[0].length);
    return { index: text.indexOf(sentence) + start, 0: sentence.slice(start, end) };
  }
  return null;
}

function overrideAt(text: string): RegExpExecArray | null {
  for (const p of OVERRIDE) {
    const all = new RegExp(p.source, "g");
    for (let m = all.exec(text); m !== null; m = all.exec(text)) {
      const object = m[1] ?? "";
      // Strong nouns (instructions, system prompt, guidelines) are enough; weaker ones need a
      // qualifier that points at what came before ("the previous rules", "your settings").
      if (/\b(?:instructions?|system prompts?|system messages?|guidelines?|directives?|guardrails|programming)\b/.test(object)) return m;
      if (
        STRONG_LAST.test(object) ? PRIOR.test(object) || PRIOR_AFTER.test(text.slice(m.index + m[0].length)) : PRIOR_EVERYTHING.test(object)
      )
        return m;
      if (all.lastIndex === m.index) all.lastIndex++;
    }
  }
  return null;
}

type Hit = (rule: PhraseHit["rule"], severity: PhraseHit["severity"], message: string, m: { index: number; 0: string }) => void;

function secretHits(text: string, context: PhraseContext, hit: Hit): void {
  const file = SECRET_FILE.exec(text);
  if (file) {
    const { sentence, offset } = sentenceOf(text, file.index);
    if (requestBefore(sentence, offset, READ_VERB)) hit("secret-access", "high", "asks to read or pass on a secret file", file);
    else hit("secret-access", "low", "names a file that usually holds secrets", file);
  }
  const all = new RegExp(CREDENTIAL.source, "g");
  for (let m = all.exec(text); m !== null; m = all.exec(text)) {
    // A parameter named `token` that says "your access token" describes itself: that is how an
    // honest server asks for a credential it needs, not the model reaching for one.
    if (context.credentialParameter) return;
    const { sentence, offset } = sentenceOf(text, m.index);
    if (!requestBefore(sentence, offset, TRANSFER_VERB)) continue;
    // The entry's own credential parameter explained in its description ("pass your access token
    // as `token`") is honest too, unless the sentence sends it somewhere else or reads it from a secret place.
    const elsewhere =
      /\b(?:as|in|into|inside|within|to)\s+(?:the\s+)?(?:\w+\s+)?(?:parameter|field|argument|arg|note|notes|sidenote|extra|comment|context|metadata|message|url|query|header|body)\b|\b(?:from|in)\s+(?:the\s+)?(?:environment|env|config|configuration|file|disk|keychain|memory|conversation|chat|history|system)\b/;
    if (context.hasCredentialParameter && !elsewhere.test(sentence)) continue;
    hit("secret-access", "medium", "asks for secrets or credentials", m);
    return;
  }
}
