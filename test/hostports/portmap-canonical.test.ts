/**
 * Issue 19: portmap prints the container address as Go's net.IP prints it (fmtIpPort and
 * IPNet.String() in plugins/meta/portmap/portmap.go): canonical in --to-destination as in the
 * hairpin -s, however the previous plugin's result spelt it.
 */
import { expect, test } from "@jest/globals";
import { dnatChain } from "../../src/hostports/portmap.js";

const config = { name: "cni-net", cniVersion: "1.0.0" } as Parameters<typeof dnatChain>[0];
const entries = [{ hostPort: 8080, containerPort: 80, protocol: "tcp" as const }] as Parameters<
  typeof dnatChain
>[3];

test.each([
  ["2001:DB8::2/64", "2001:db8::2/64", "[2001:db8::2]:80"],
  ["2001:db8:0:0::0002/64", "2001:db8::2/64", "[2001:db8::2]:80"],
  ["10.0.0.2/24", "10.0.0.2/24", "10.0.0.2:80"],
])("%s: -s %s, --to-destination %s", (written, hairpin, to) => {
  const c = dnatChain(config, "cid", written, entries);
  const words = c.rules.flat();
  expect(words[words.indexOf("-s") + 1]).toBe(hairpin);
  expect(words[words.indexOf("--to-destination") + 1]).toBe(to);
});
