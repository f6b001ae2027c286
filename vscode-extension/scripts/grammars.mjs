// Generates the TextMate grammars in syntaxes/ (`npm run grammars`; a unit test checks they are current).
//
// Why a generator: every embedded language (pipeline, condition, shell) appears in five YAML value
// forms (block scalar, plain, plain on the next lines, double-quoted, single-quoted) under two key
// forms (`key:` and `- key:`), plus JSON's `"key": "value"`. Writing those 30-odd rules by hand
// would repeat the same regular expressions with different escaping.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The standard commands of lobsterlang/commands/specs.py (a pytest test keeps the two equal). */
export const COMMANDS = JSON.parse(readFileSync(join(root, 'scripts', 'commands.json'), 'utf8'));

const KEYS = {
  pipeline: ['pipeline'],
  condition: ['when', 'condition'],
  shell: ['run', 'command'],
};

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const alt = (words) => words.map(esc).join('|');

// A plain scalar cannot start with an indicator (and `-?:` only when followed by a space).
const PLAIN_START = String.raw`(?![-?:](?:\s|$))(?=[^\s#|>'"\[\]{},&*!%@` + '`' + String.raw`])`;
// A command word: what the pipeline grammar calls the first word of a stage.
const CMD = String.raw`([^\s|'"\\$]+)`;
const COMMENT_TAIL = String.raw`(?:[ \t]+(#.*))?[ \t]*$`;
const YAML_ESCAPE = {
  match: String.raw`\\(?:[0abtnvfreN_LP \t/\\"]|x\h{2}|u\h{4}|U\h{8}|$)`,
  name: 'constant.character.escape.yaml',
};
// In a pipeline's double-quoted word only \" \\ \$ \` and backslash-newline are escapes (grammar/pipeline.lark).
const DQ_WORD_ESCAPE = String.raw`\\(?:["\\$\x60]|$)`;
const YAML_SQ_ESCAPE = { match: "''", name: 'constant.character.escape.single-quoted.yaml' };

const keyCaptures = (first) => ({
  [first]: { name: 'entity.name.tag.yaml' },
  [first + 1]: { name: 'punctuation.separator.key-value.mapping.yaml' },
});
const commentCapture = { name: 'comment.line.number-sign.yaml' };
const INDENTATION_INDICATOR = { name: 'constant.numeric.indentation-indicator.yaml' };
const CHOMPING_INDICATOR = { name: 'storage.modifier.chomping-indicator.yaml' };

/**
 * `key:` at the start of a line, optionally as a `- key:` sequence item. Returns [regex, while, first key
 * group]. `margin` rules match only at column 0 (their indentation group is empty).
 */
function blockKey(keys, dash, margin) {
  const indent = margin ? '()' : String.raw`([ \t]*)`;
  if (dash) {
    return [
      String.raw`^${indent}(-)([ \t]+)(${alt(keys)})[ \t]*(:)(?=\s|$)`,
      String.raw`^(?=\1 \3[ \t]|[ \t]*$)`,
      4,
    ];
  }
  return [String.raw`^${indent}(${alt(keys)})[ \t]*(:)(?=\s|$)`, String.raw`^(?=\1[ \t]|[ \t]*$)`, 2];
}

function dashCaptures(dash) {
  return dash ? { 2: { name: 'punctuation.definition.block.sequence.item.yaml' } } : {};
}

// ── the languages themselves, per quoting context ─────────────────────────────────────────────
// `raw` is text as the language sees it (block and plain scalars); `dq` sits inside a YAML/JSON
// double-quoted string (where `\"` is a quote and `\\` a backslash); `sq` inside a YAML
// single-quoted string (where `''` is a quote).

function commandCaptures(n, outer = '') {
  return {
    [n]: {
      name: `${outer}entity.name.function.command.lobster`,
      patterns: [{ match: String.raw`(?<![^\s|'"\\])(?:${alt(COMMANDS)})(?![^\s|'"\\$])`, name: 'support.function.builtin.lobster' }],
    },
  };
}

function pipelineWords(ctx) {
  const words = [];
  if (ctx === 'raw') {
    words.push(
      {
        begin: "'", end: "'",
        beginCaptures: { 0: { name: 'punctuation.definition.string.begin.lobster' } },
        endCaptures: { 0: { name: 'punctuation.definition.string.end.lobster' } },
        name: 'string.quoted.single.lobster',
        patterns: [{ match: String.raw`\\'`, name: 'constant.character.escape.lobster' }, { include: '#placeholder' }],
      },
      {
        begin: '"', end: '"',
        beginCaptures: { 0: { name: 'punctuation.definition.string.begin.lobster' } },
        endCaptures: { 0: { name: 'punctuation.definition.string.end.lobster' } },
        name: 'string.quoted.double.lobster',
        patterns: [{ match: DQ_WORD_ESCAPE, name: 'constant.character.escape.lobster' }, { include: '#placeholder' }],
      },
    );
  } else if (ctx === 'dq') {
    words.push(
      quotedMatch(String.raw`(')((?:[^'"\\]|\\[^"])*)(')`, 'single', [YAML_ESCAPE]),
      quotedMatch(String.raw`(\\")((?:[^"\\]|\\[^"])*)(\\")`, 'double', [YAML_ESCAPE]),
      YAML_ESCAPE,
    );
  } else {
    words.push(
      quotedMatch(String.raw`('')((?:\\''|[^'])*?)('')`, 'single', [{ match: String.raw`\\''`, name: 'constant.character.escape.lobster' }]),
      quotedMatch(String.raw`(")((?:[^"'\\]|\\[^']|'')*)(")`, 'double', [{ match: DQ_WORD_ESCAPE, name: 'constant.character.escape.lobster' }]),
      YAML_SQ_ESCAPE,
    );
  }
  return words;
}

function quotedMatch(match, kind, innerEscapes) {
  return {
    match,
    name: `string.quoted.${kind}.lobster`,
    captures: {
      1: { name: 'punctuation.definition.string.begin.lobster' },
      2: { patterns: [...innerEscapes, { include: '#placeholder' }] },
      3: { name: 'punctuation.definition.string.end.lobster' },
    },
  };
}

function pipelinePatterns(ctx) {
  return [
    {
      begin: String.raw`\|`,
      beginCaptures: { 0: { name: 'keyword.operator.pipe.lobster' } },
      end: String.raw`${CMD}|(?=\S)`,
      endCaptures: commandCaptures(1),
    },
    {
      match: String.raw`(?<=^|[\s|])(--[^\s=|'"\\]+)(=)?`,
      captures: {
        1: { name: 'variable.parameter.flag.lobster' },
        2: { name: 'keyword.operator.assignment.lobster' },
      },
    },
    ...pipelineWords(ctx),
    { include: '#placeholder' },
  ];
}

function conditionPatterns(ctx) {
  const strings = {
    raw: [
      quotedMatch(String.raw`(")((?:[^"\\]|\\.)*)(")`, 'double', [{ match: String.raw`\\.`, name: 'constant.character.escape.lobster' }]),
      quotedMatch(String.raw`(')((?:[^'\\]|\\.)*)(')`, 'single', [{ match: String.raw`\\.`, name: 'constant.character.escape.lobster' }]),
    ],
    dq: [
      quotedMatch(String.raw`(\\")((?:[^"\\]|\\[^"])*)(\\")`, 'double', [YAML_ESCAPE]),
      quotedMatch(String.raw`(')((?:[^'"\\]|\\[^"])*)(')`, 'single', [YAML_ESCAPE]),
      YAML_ESCAPE,
    ],
    sq: [
      quotedMatch(String.raw`(")((?:[^"'\\]|\\[^']|'')*)(")`, 'double', [{ match: String.raw`\\.`, name: 'constant.character.escape.lobster' }]),
      quotedMatch(String.raw`('')((?:\\''|[^'])*?)('')`, 'single', [{ match: String.raw`\\''`, name: 'constant.character.escape.lobster' }]),
      YAML_SQ_ESCAPE,
    ],
  }[ctx];
  return [
    ...strings,
    { match: String.raw`&&|\|\|`, name: 'keyword.operator.logical.lobster' },
    { match: String.raw`==|!=|<=|>=|<|>`, name: 'keyword.operator.comparison.lobster' },
    { match: '!', name: 'keyword.operator.logical.lobster' },
    { match: String.raw`\(`, name: 'punctuation.section.parens.begin.lobster' },
    { match: String.raw`\)`, name: 'punctuation.section.parens.end.lobster' },
    { match: String.raw`\b(?:true|false)\b`, name: 'constant.language.boolean.lobster' },
    { match: String.raw`\bnull\b`, name: 'constant.language.null.lobster' },
    { match: String.raw`(?<![\w.$-])-?[0-9]+(?:\.[0-9]+)?(?![\w.])`, name: 'constant.numeric.lobster' },
    { match: String.raw`[A-Za-z_][A-Za-z0-9_-]*`, name: 'string.unquoted.identifier.lobster' },
    { match: String.raw`[^\s'"\\]`, name: 'invalid.illegal.character.lobster' },
  ];
}

function shellPatterns(ctx) {
  const shell = { include: 'source.shell' };
  if (ctx === 'dq') return [YAML_ESCAPE, shell];
  if (ctx === 'sq') return [YAML_SQ_ESCAPE, shell];
  return [shell];
}

// ── YAML value forms ──────────────────────────────────────────────────────────────────────────

const LANG = {
  pipeline: { meta: 'meta.embedded.pipeline.lobster', patterns: pipelinePatterns, first: true },
  condition: { meta: 'meta.embedded.condition.lobster', patterns: conditionPatterns, first: false },
  shell: { meta: 'meta.embedded.block.shellscript', line: 'meta.embedded.line.shellscript', patterns: shellPatterns, first: false },
};

function blockRules(lang, dash, margin) {
  const { meta, patterns, first } = LANG[lang];
  const [key, whileRe, k] = blockKey(KEYS[lang], dash, margin);
  const captures = { ...dashCaptures(dash), ...keyCaptures(k) };
  const body = first
    ? [{ begin: String.raw`^([ \t]+)${CMD}?`, beginCaptures: commandCaptures(2), end: '(?!)', patterns: patterns('raw') }]
    : patterns('raw');
  return [
    {
      // key: |-   (block scalar; the content ends at the first line indented no deeper than the key)
      // (indentation and chomping indicators come in either order: |2- or |-2)
      begin: String.raw`${key}[ \t]+(?:(\|)|(>))(?:([1-9])([-+])?|([-+])([1-9])?)?${COMMENT_TAIL}`,
      beginCaptures: {
        ...captures,
        [k + 2]: { name: 'keyword.control.flow.block-scalar.literal.yaml' },
        [k + 3]: { name: 'keyword.control.flow.block-scalar.folded.yaml' },
        [k + 4]: INDENTATION_INDICATOR,
        [k + 5]: CHOMPING_INDICATOR,
        [k + 6]: CHOMPING_INDICATOR,
        [k + 7]: INDENTATION_INDICATOR,
        [k + 8]: commentCapture,
      },
      while: whileRe,
      contentName: meta,
      patterns: body,
    },
    {
      // key:        (a plain scalar on the following, deeper lines)
      begin: String.raw`${key}${COMMENT_TAIL}`,
      beginCaptures: { ...captures, [k + 2]: commentCapture },
      while: whileRe,
      contentName: meta,
      patterns: first ? body : [yamlComment(), ...patterns('raw')],
    },
    singleLineQuoted(lang, key, captures, k, 'dq'),
    singleLineQuoted(lang, key, captures, k, 'sq'),
    {
      // key: plain text, possibly continued on deeper lines; ` #` starts a YAML comment
      begin: String.raw`${key}[ \t]+${PLAIN_START}${first ? CMD + '?' : ''}`,
      beginCaptures: { ...captures, ...(first ? commandCaptures(k + 2) : {}) },
      while: whileRe,
      contentName: lang === 'shell' ? LANG.shell.line : meta,
      patterns: [yamlComment(), ...patterns('raw')],
    },
  ];
}

function yamlComment() {
  return { match: String.raw`(?<=[ \t])#.*$`, name: 'comment.line.number-sign.yaml' };
}

/** A quoted value closed on the same line: the opening and closing quote, what the content may hold, the kind. */
const QUOTED = {
  dq: ['(")', '(")', String.raw`(?:[^"\\]|\\.)*`, 'double'],
  sq: ["(')", "('(?!'))", "(?:[^']|'')*", 'single'],
};

/** Regex of a quoted value in four groups: open, first command (pipelines only), rest, close. */
function quotedRegex(lang, ctx) {
  const [open, close, content] = QUOTED[ctx];
  const first = LANG[lang].first ? String.raw`(?:[ \t]*${CMD})?` : '()';
  return `${open}${first}(${content})${close}`;
}

/**
 * Captures of a quoted value starting at group n. The content is tokenized inside its capture,
 * so an embedded rule (an unclosed shell quote, say) can never run past the closing quote.
 */
function quotedCaptures(lang, ctx, n) {
  const { meta, line, patterns } = LANG[lang];
  const string = `string.quoted.${QUOTED[ctx][3]}.yaml`;
  return {
    [n]: { name: `${string} punctuation.definition.string.begin.yaml` },
    ...commandCaptures(n + 1, `${string} ${line ?? meta} `),
    [n + 2]: { name: `${string} ${line ?? meta}`, patterns: patterns(ctx) },
    [n + 3]: { name: `${string} punctuation.definition.string.end.yaml` },
  };
}

/** `key: "..."` / `key: '...'` closed on the same line. Multi-line quoted values stay plain YAML strings. */
function singleLineQuoted(lang, keyRe, captures, k, ctx) {
  return {
    match: String.raw`${keyRe}[ \t]+${quotedRegex(lang, ctx)}${COMMENT_TAIL}`,
    captures: { ...captures, ...quotedCaptures(lang, ctx, k + 2), [k + 6]: commentCapture },
  };
}

/** JSON / YAML flow form: `"pipeline": "..."`, `'pipeline': '...'`, `pipeline: "..."`. */
function flowRules(lang) {
  const keys = alt(KEYS[lang]);
  return ['dq', 'sq'].map((ctx) => ({
    match: String.raw`("(?:${keys})"|'(?:${keys})'|(?:${keys}))[ \t]*(:)[ \t]*${quotedRegex(lang, ctx)}`,
    captures: {
      1: { name: 'entity.name.tag.yaml' },
      2: { name: 'punctuation.separator.key-value.mapping.yaml' },
      ...quotedCaptures(lang, ctx, 3),
    },
  }));
}

// ── grammar files ─────────────────────────────────────────────────────────────────────────────

const PLACEHOLDER = {
  match: String.raw`(\{\{)\s*([^{}\s]*)\s*(\}\})`,
  name: 'meta.placeholder.lobster',
  captures: {
    1: { name: 'punctuation.definition.placeholder.begin.lobster' },
    2: { name: 'variable.other.field.lobster' },
    3: { name: 'punctuation.definition.placeholder.end.lobster' },
  },
};

const BLOCK_CONTEXT = 'source.lobster -comment -string -meta.embedded -meta.flow-mapping -meta.flow-sequence';

export function grammars() {
  const rules = (margin) => Object.keys(KEYS).flatMap((lang) => [true, false].flatMap((dash) => blockRules(lang, dash, margin)));
  const flow = Object.keys(KEYS).flatMap(flowRules);
  const notice = 'Generated by scripts/grammars.mjs; edit that file and run `npm run grammars`.';
  return {
    'lobster.tmLanguage.json': {
      $comment: notice,
      name: 'Lobster',
      scopeName: 'source.lobster',
      patterns: [{ include: 'source.yaml' }],
    },
    'lobster-keys.injection.tmLanguage.json': {
      $comment: `${notice} Block-style keys whose values are pipelines, conditions or shell. R: lets YAML win ties: at column 0 of a block scalar's first line, YAML's content rule must win.`,
      scopeName: 'lobster.injection.keys',
      injectionSelector: `R:${BLOCK_CONTEXT}`,
      patterns: rules(false),
      repository: { placeholder: PLACEHOLDER },
    },
    'lobster-keys-margin.injection.tmLanguage.json': {
      $comment: `${notice} The same keys at column 0, where block scalar content never is; L: wins the tie with YAML's own rules there (\`- when:\` against YAML's \`-\`).`,
      scopeName: 'lobster.injection.keys-margin',
      injectionSelector: `L:${BLOCK_CONTEXT}`,
      patterns: rules(true),
      repository: { placeholder: PLACEHOLDER },
    },
    'lobster-flow.injection.tmLanguage.json': {
      $comment: `${notice} JSON and YAML flow mappings: "pipeline": "...".`,
      scopeName: 'lobster.injection.flow',
      injectionSelector: 'L:source.lobster meta.flow-mapping -string -comment -meta.embedded',
      patterns: flow,
      repository: { placeholder: PLACEHOLDER },
    },
    'lobster-references.injection.tmLanguage.json': {
      $comment: `${notice} \${arg} and $step.field.path references, wherever Lobster substitutes templates (not in comments).`,
      scopeName: 'lobster.injection.references',
      injectionSelector: 'L:source.lobster -comment',
      patterns: [
        {
          match: String.raw`(\$\{)([A-Za-z0-9_-]+)(\})`,
          name: 'meta.reference.arg.lobster',
          captures: {
            1: { name: 'punctuation.definition.reference.begin.lobster' },
            2: { name: 'variable.other.arg.lobster' },
            3: { name: 'punctuation.definition.reference.end.lobster' },
          },
        },
        {
          match: String.raw`(\$)([A-Za-z0-9_-]+)((?:\.[A-Za-z0-9_]+)+)`,
          name: 'meta.reference.step.lobster',
          captures: {
            1: { name: 'punctuation.definition.reference.lobster' },
            2: { name: 'variable.other.step.lobster' },
            3: { name: 'variable.other.property.lobster' },
          },
        },
      ],
    },
  };
}

export function writeGrammars() {
  for (const [file, grammar] of Object.entries(grammars())) {
    writeFileSync(join(root, 'syntaxes', file), JSON.stringify(grammar, null, 2) + '\n');
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeGrammars();
