/** One problem, one line: whatever text an issue carries, its formatted line is one clean line. */
import { describe, expect, test } from "@jest/globals";
import { fc, it } from "@fast-check/jest";
import { displayFieldPath, escapeControl, formatIssue } from "../../src/model/issue.js";

const RAW_CONTROL =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const text = fc.string({ unit: "binary", maxLength: 20 });

describe("issue formatting", () => {
  it.prop([text, text, text, text, fc.array(fc.oneof(text, fc.nat()), { maxLength: 3 }), text], {
    numRuns: 300,
  })(
    "every part escaped: one line, no raw control character",
    (file, kind, ns, name, path, message) => {
      const line = formatIssue({
        code: "invalid",
        severity: "error",
        message,
        source: { file, line: 1, col: 2 },
        object: { kind, namespace: ns, name },
        path,
      });
      expect(line).not.toMatch(RAW_CONTROL);
      expect(line.split("\n")).toHaveLength(1);
    },
  );

  test("escapes as Go's %q writes them; other text, surrogate pairs and backslashes unchanged", () => {
    expect(escapeControl("a\nb\tc\u001b[2J\u0000\u007f\u2028\ud800x\\n😀é")).toBe(
      "a\\nb\\tc\\x1b[2J\\x00\\x7f\\u2028\\ud800x\\n😀é",
    );
  });

  test("map keys in brackets, field names dotted", () => {
    expect(
      displayFieldPath(["metadata", "annotations", "service.kubernetes.io/topology-mode"]),
    ).toBe("metadata.annotations[service.kubernetes.io/topology-mode]");
    expect(displayFieldPath(["spec", "ports", 0, "protocol"])).toBe("spec.ports[0].protocol");
  });
});
