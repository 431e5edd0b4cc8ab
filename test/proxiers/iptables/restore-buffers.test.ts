/** The restore sections batch lines into flat chunks: the text must not show it. */
import { describe, expect, test } from "@jest/globals";
import { RestoreBuffers, RestoreSection } from "../../../src/proxiers/iptables/restore-buffers.js";

describe("RestoreSection", () => {
  // Enough lines (≈ 400 Ki characters) to span many 16 Ki chunks, of varying lengths.
  const lines = Array.from(
    { length: 6000 },
    (_, i) => `-A KUBE-SEP-${i} -m comment --comment "ns/svc:${"p".repeat(i % 37)}" -j X${i}`,
  );

  test("text is every line, newline-terminated, in order", () => {
    const s = new RestoreSection();
    for (const l of lines) s.push(l);
    expect(s.length).toBe(lines.length);
    expect(s.text()).toBe(`${lines.join("\n")}\n`);
    s.push("after");
    expect(s.text()).toBe(`${lines.join("\n")}\nafter\n`);
  });

  test("an empty section is empty text", () => {
    expect(new RestoreSection().text()).toBe("");
  });

  test("includes finds whole lines only, wherever the chunks end", () => {
    const s = new RestoreSection();
    const some = lines.slice(0, 1500); // ≈ 100 Ki characters: several chunks
    for (const l of some) s.push(l);
    for (const l of some) expect(s.includes(l)).toBe(true);
    expect(s.includes("-A KUBE-SEP-12 -m comment")).toBe(false);
    expect(s.includes('comment "ns/svc:" -j X0')).toBe(false);
    expect(s.includes(lines[1500]!)).toBe(false);
  });

  test("non-ASCII text survives", () => {
    const s = new RestoreSection();
    s.push('-A X -m comment --comment "é ü 漢字" -j Y');
    expect(new RestoreBuffers().text()).toBe("*filter\nCOMMIT\n*nat\nCOMMIT\n");
    expect(s.text()).toBe('-A X -m comment --comment "é ü 漢字" -j Y\n');
  });
});
