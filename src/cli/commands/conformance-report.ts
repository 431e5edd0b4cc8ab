/**
 * The `conformance` command's reports: text for people, JUnit XML (the testsuites / testsuite /
 * testcase / failure shape of the common JUnit schema, the Jenkins xunit plugin's junit-10.xsd,
 * which CI servers read) and JSON. One testsuite per group: the SCTP plan's two feature tags,
 * then the Service and NetworkPolicy suites.
 */
import { SUITE_TITLES, type SuiteResult } from "../../testing/conformance/run-suites.js";

function escapeXml(s: string): string {
  return (
    s
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/'/g, "&apos;")
      // Characters XML 1.0 cannot carry at all (a failure message may quote raw bytes).
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "\ufffd")
  );
}

const failedCount = (rs: readonly SuiteResult[]): number =>
  rs.filter((r) => r.failures.length > 0).length;

/** The results by group, groups in first-seen order. */
function byGroup(results: readonly SuiteResult[]): (readonly SuiteResult[])[] {
  const groups = new Map<string, SuiteResult[]>();
  for (const r of results) {
    const key = `${r.suite}\u0000${r.group}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups.values()];
}

/** "SCTP conformance: ADAPTER [Feature:SCTP]", "Service conformance: ADAPTER". */
function groupTitle(adapter: string, r: SuiteResult): string {
  const title = SUITE_TITLES[r.suite];
  return r.group === title ? `${title}: ${adapter}` : `${title}: ${adapter} ${r.group}`;
}

export function formatJunit(adapter: string, results: readonly SuiteResult[]): string {
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="${escapeXml(`conformance: ${adapter}`)}" tests="${results.length}" failures="${failedCount(results)}" errors="0" time="0">`,
  ];
  for (const rs of byGroup(results)) {
    const first = rs[0];
    if (first === undefined) continue;
    const title = SUITE_TITLES[first.suite];
    const classname = first.group === title ? title : `${title}.${first.group}`;
    lines.push(
      `  <testsuite name="${escapeXml(groupTitle(adapter, first))}" tests="${rs.length}" failures="${failedCount(rs)}" errors="0" skipped="0" time="0">`,
    );
    for (const r of rs) {
      const head = `    <testcase classname="${escapeXml(classname)}" name="${escapeXml(r.name)}" time="0"`;
      const notes = r.notes ?? [];
      if (r.failures.length === 0 && notes.length === 0) {
        lines.push(`${head}/>`);
        continue;
      }
      lines.push(`${head}>`);
      if (r.failures.length > 0) {
        const text = r.failures.join("\n\n");
        lines.push(
          `      <failure message="${escapeXml(text.split("\n")[0] ?? "")}" type="ConformanceFailure">${escapeXml(text)}</failure>`,
        );
      }
      if (notes.length > 0)
        lines.push(`      <system-out>${escapeXml(notes.join("\n"))}</system-out>`);
      lines.push(`    </testcase>`);
    }
    lines.push(`  </testsuite>`);
  }
  lines.push(`</testsuites>`, "");
  return lines.join("\n");
}

export function formatConformanceText(adapter: string, results: readonly SuiteResult[]): string {
  const lines: string[] = [];
  let suite: SuiteResult["suite"] | undefined;
  for (const r of results) {
    if (r.suite !== suite) {
      suite = r.suite;
      lines.push(`${SUITE_TITLES[suite]}: ${adapter}`);
    }
    const group = r.group === SUITE_TITLES[r.suite] ? "" : `${r.group} `;
    lines.push(`  ${r.failures.length === 0 ? "PASS" : "FAIL"} ${group}${r.name}`);
    for (const n of r.notes ?? []) lines.push(`      note: ${n}`);
    for (const f of r.failures) lines.push(...f.split("\n").map((l) => `      ${l}`));
  }
  const failed = failedCount(results);
  lines.push(`${results.length - failed} passed, ${failed} failed`, "");
  return lines.join("\n");
}

export function formatConformanceJson(
  adapter: string,
  backend: string,
  results: readonly SuiteResult[],
): string {
  return `${JSON.stringify({ adapter, backend, results }, null, 2)}\n`;
}
