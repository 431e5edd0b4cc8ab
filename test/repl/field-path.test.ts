import { describe, expect, it } from "@jest/globals";
import { EditError, parseFieldPath } from "../../src/repl/edits.js";

describe("REPL field paths", () => {
  it.each([
    ["spec.ports[0].port", ["spec", "ports", 0, "port"]],
    ["spec.ports.0.port", ["spec", "ports", 0, "port"]],
    ['metadata.labels["app.kubernetes.io/name"]', ["metadata", "labels", "app.kubernetes.io/name"]],
    ["metadata.annotations['a.b/c']", ["metadata", "annotations", "a.b/c"]],
    ["spec", ["spec"]],
  ])("%s", (path, steps) => {
    expect(parseFieldPath(path)).toEqual(steps);
  });

  // Each of these used to be read as if the stray dot were not there.
  it.each(["spec..port", ".spec", "spec.", "spec.ports.[0]", "", "spec[x]"])(
    "%j is refused",
    (path) => {
      expect(() => parseFieldPath(path)).toThrow(EditError);
    },
  );
});
