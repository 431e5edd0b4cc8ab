import { describe, expect, it } from "@jest/globals";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseCluster } from "../../src/model/load.js";
import { loadCluster } from "../../src/model/load-files.js";
import { objectsOf, objectsYaml } from "../../src/repl/objects.js";

/** Every example folder whose manifests load. */
function exampleSources(): string[] {
  return readdirSync("examples")
    .map((d) => join("examples", d))
    .filter((d) => statSync(d).isDirectory())
    .filter((d) => readdirSync(d).some((f) => /\.ya?ml$/.test(f)));
}

describe("save round-trip", () => {
  it("writes YAML that loads back to the same objects, for every example", () => {
    const sources = exampleSources();
    expect(sources.length).toBeGreaterThan(5);
    for (const dir of sources) {
      const cluster = loadCluster(dir, { validation: "warn" });
      const text = objectsYaml(objectsOf(cluster));
      const back = parseCluster([{ file: "saved.yaml", text }]);
      expect({ dir, objects: objectsOf(back).map((o) => o.value) }).toEqual({
        dir,
        objects: objectsOf(cluster).map((o) => o.value),
      });
    }
  });
});
