/**
 * Name and label formats with apimachinery's exact messages (pkg/util/validation and
 * pkg/api/validate/content): each function returns the list of problems, empty when valid.
 */

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`;

const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1035_LABEL = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const LABEL_KEY = new RegExp(`^${LABEL_KEY_FMT}$`);
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);

export function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join("or ")}regex used for validation is '${fmt}')`;
}

export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

/** Go's `len` counts bytes. */
function byteLength(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/**
 * `byteLength(s) > max`, without encoding the short strings almost every name is: one UTF-16
 * unit is at most 3 UTF-8 bytes, and never fewer than 1.
 */
function longerThan(s: string, max: number): boolean {
  if (s.length > max) return true;
  return s.length * 3 > max && byteLength(s) > max;
}

/**
 * The strings each rule has found valid: a large load repeats the same namespaces, node names,
 * port names and label keys in every object, and a repeat then costs one Set lookup. Only valid
 * strings are kept (a problem list is a fresh array every time, as callers may extend it); the
 * set is emptied when full, so memory stays bounded on any input.
 */
const MAX_REMEMBERED = 4096;

function rememberingValid(check: (v: string) => string[]): (v: string) => string[] {
  const seen = new Set<string>();
  return (v) => {
    if (seen.has(v)) return [];
    const errs = check(v);
    if (errs.length === 0) {
      if (seen.size >= MAX_REMEMBERED) seen.clear();
      seen.add(v);
    }
    return errs;
  };
}

export const dns1123LabelProblems = rememberingValid(checkDns1123Label);

function checkDns1123Label(v: string): string[] {
  const errs: string[] = [];
  if (longerThan(v, 63)) errs.push(maxLenError(63));
  if (!DNS1123_LABEL.test(v)) {
    if (DNS1123_SUBDOMAIN.test(v)) errs.push("must not contain dots");
    else
      errs.push(
        regexError(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
          DNS1123_LABEL_FMT,
          "my-name",
          "123-abc",
        ),
      );
  }
  return errs;
}

export const dns1123SubdomainProblems = rememberingValid(checkDns1123Subdomain);

function checkDns1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (longerThan(v, 253)) errs.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN.test(v))
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        "example.com",
      ),
    );
  return errs;
}

export const dns1035LabelProblems = rememberingValid(checkDns1035Label);

function checkDns1035Label(v: string): string[] {
  const errs: string[] = [];
  if (longerThan(v, 63)) errs.push(maxLenError(63));
  if (!DNS1035_LABEL.test(v))
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL_FMT,
        "my-name",
        "abc-123",
      ),
    );
  return errs;
}

const LABEL_KEY_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** `IsQualifiedName` / `IsLabelKey`: an optional DNS-subdomain prefix and `/`, then a name. */
export const labelKeyProblems = rememberingValid(checkLabelKey);

function checkLabelKey(v: string): string[] {
  const errs: string[] = [];
  const parts = v.split("/");
  let name: string;
  if (parts.length === 1) name = parts[0] ?? "";
  else if (parts.length === 2) {
    const prefix = parts[0] ?? "";
    name = parts[1] ?? "";
    if (prefix.length === 0) errs.push("prefix part must be non-empty");
    else errs.push(...dns1123SubdomainProblems(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a valid label key ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (longerThan(name, 63)) errs.push(`name part ${maxLenError(63)}`);
  if (!LABEL_KEY.test(name))
    errs.push(
      `name part ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")}`,
    );
  return errs;
}

export const labelValueProblems = rememberingValid(checkLabelValue);

function checkLabelValue(v: string): string[] {
  const errs: string[] = [];
  if (longerThan(v, 63)) errs.push(maxLenError(63));
  if (!LABEL_VALUE.test(v))
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        "MyValue",
        "my_value",
        "12345",
      ),
    );
  return errs;
}
