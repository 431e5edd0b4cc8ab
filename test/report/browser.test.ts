/**
 * The report in a real browser: Debian's Chromium, headless, driven by playwright-core. The page
 * must load with no console error and no network request, and the heat map must show the right
 * cells in the right colours. A screenshot goes to artifacts/ (git-ignored; CI keeps it).
 */
import { describe, expect } from "@jest/globals";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { loadCluster } from "../../src/model/load-files.js";
import { policyMatrix } from "../../src/policy/matrix.js";
import { toolTest } from "../repl/tool-test.js";
import { exampleInputs, reportFor } from "./examples.js";

const CHROMIUM = "/usr/bin/chromium";
const ALLOWED = "rgb(46, 139, 87)";
const DENIED = "rgb(192, 57, 43)";

/** playwright gives every launch a fresh, temporary profile (its own --user-data-dir). */
async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

describe("the report in Chromium", () => {
  toolTest(
    "every example's report loads with no error and no request; the heat map is right",
    "chromium",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "kube-netsim-browser-"));
      const browser = await launch();
      try {
        const inputs = exampleInputs();
        expect(inputs.length).toBeGreaterThanOrEqual(6);
        for (const input of inputs) {
          const file = join(dir, `${input.dir.replace(/\W+/g, "_")}.html`);
          writeFileSync(file, reportFor(input));
          const page = await browser.newPage();
          const problems: string[] = [];
          page.on("console", (m) => {
            if (m.type() === "error" || m.type() === "warning")
              problems.push(`console ${m.type()}: ${m.text()}`);
          });
          page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
          page.on("request", (r) => {
            if (!r.url().startsWith("file://")) problems.push(`request: ${r.url()}`);
          });
          await page.goto(`file://${file}`, { waitUntil: "load" });
          const title = await page.title();
          await page.close();
          expect({ dir: input.dir, title, problems }).toEqual({
            dir: input.dir,
            title: "kube-netsim report",
            problems: [],
          });
        }

        // A known case: the SCTP test plan's policy (SCTP 5000 allowed into the server, TCP/UDP not).
        const cluster = loadCluster("examples/sctp-policy/cluster.yaml");
        const rows = policyMatrix(cluster);
        const file = join(dir, "policy.html");
        writeFileSync(file, reportFor({ dir: "examples/sctp-policy" }));
        const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
        await page.goto(`file://${file}`, { waitUntil: "load" });
        // Page-side code as text: the project's TypeScript has no DOM types.
        const colours = await page.evaluate<string[]>(
          "Array.from(document.querySelectorAll('td.cell')).map((td) => getComputedStyle(td).backgroundColor)",
        );
        expect(colours.length).toBe(rows.length);
        expect(colours.filter((c) => c === DENIED).length).toBe(
          rows.filter((r) => !r.allowed).length,
        );
        expect(colours.filter((c) => c === ALLOWED).length).toBe(
          rows.filter((r) => r.allowed).length,
        );
        expect(
          await page.evaluate<string[]>(
            "Array.from(document.querySelectorAll('table.heatmap')).map((t) => t.getAttribute('data-protocol'))",
          ),
        ).toEqual(["TCP", "UDP", "SCTP"]);
        // Hovering a cell shows its explanation in the side panel.
        await page.hover('td.cell[data-why^="default/client → default/server 5000/TCP"]');
        expect(await page.textContent("#why")).toMatch(
          /^default\/client → default\/server 5000\/TCP: denied\n/,
        );
        const shots = resolve("artifacts");
        mkdirSync(shots, { recursive: true });
        await page.screenshot({ path: join(shots, "report-sctp-policy.png"), fullPage: true });
        await page.close();
      } finally {
        await browser.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
