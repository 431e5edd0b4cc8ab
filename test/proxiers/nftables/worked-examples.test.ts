/**
 * The spec's worked examples (shared/spec/kube-proxy-nftables.md §11): a service's own lines,
 * in the upstream sorted form, are exactly the lines the spec lists (everything else is the
 * setup every table has).
 */
import { describe, expect, test } from "@jest/globals";
import { sortNftablesTransaction } from "../../../src/netfilter/nftables/upstream-sort.js";
import { renderNftables } from "../../../src/proxiers/nftables/index.js";
import { FAKE_NODE } from "../iptables/helpers.js";
import { cluster, edgeIng, NFT_CONFIG, SHOP_WEB, TEL_SIG } from "./feature-cases.js";

const opts = { node: FAKE_NODE, proxyConfig: NFT_CONFIG };
const setup = new Set(sortNftablesTransaction(renderNftables(cluster(""), opts).dump).split("\n"));

function ownLines(yaml: string): string[] {
  const sorted = sortNftablesTransaction(renderNftables(cluster(yaml), opts).dump).split("\n");
  return sorted.filter((l) => !setup.has(l));
}

const lines = (s: string): string[] => s.trim().split("\n");

describe("spec §11 worked examples", () => {
  test("11.1 ClusterIP with two endpoints", () => {
    expect(ownLines(SHOP_WEB)).toEqual(
      lines(`
add chain ip kube-proxy endpoint-7A35AQDK-shop/web/tcp/http__10.244.2.9/8080
add chain ip kube-proxy endpoint-CF7SRNYN-shop/web/tcp/http__10.244.1.7/8080
add chain ip kube-proxy service-KHN6ECMT-shop/web/tcp/http
add rule ip kube-proxy endpoint-7A35AQDK-shop/web/tcp/http__10.244.2.9/8080 ip saddr 10.244.2.9 jump mark-for-masquerade
add rule ip kube-proxy endpoint-7A35AQDK-shop/web/tcp/http__10.244.2.9/8080 meta l4proto tcp dnat to 10.244.2.9:8080
add rule ip kube-proxy endpoint-CF7SRNYN-shop/web/tcp/http__10.244.1.7/8080 ip saddr 10.244.1.7 jump mark-for-masquerade
add rule ip kube-proxy endpoint-CF7SRNYN-shop/web/tcp/http__10.244.1.7/8080 meta l4proto tcp dnat to 10.244.1.7:8080
add rule ip kube-proxy service-KHN6ECMT-shop/web/tcp/http ip daddr 172.30.10.5 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
add rule ip kube-proxy service-KHN6ECMT-shop/web/tcp/http numgen random mod 2 vmap { 0 : goto endpoint-CF7SRNYN-shop/web/tcp/http__10.244.1.7/8080 , 1 : goto endpoint-7A35AQDK-shop/web/tcp/http__10.244.2.9/8080 }
add element ip kube-proxy cluster-ips { 172.30.10.5 }
add element ip kube-proxy service-ips { 172.30.10.5 . tcp . 80 : goto service-KHN6ECMT-shop/web/tcp/http }`),
    );
  });

  test("11.2 NodePort, SCTP", () => {
    expect(ownLines(TEL_SIG)).toEqual(
      lines(`
add chain ip kube-proxy endpoint-MW3PJS7K-tel/sig/sctp/m3ua__10.244.3.4/2905
add chain ip kube-proxy external-HCJ2763A-tel/sig/sctp/m3ua
add chain ip kube-proxy service-HCJ2763A-tel/sig/sctp/m3ua
add rule ip kube-proxy endpoint-MW3PJS7K-tel/sig/sctp/m3ua__10.244.3.4/2905 ip saddr 10.244.3.4 jump mark-for-masquerade
add rule ip kube-proxy endpoint-MW3PJS7K-tel/sig/sctp/m3ua__10.244.3.4/2905 meta l4proto sctp dnat to 10.244.3.4:2905
add rule ip kube-proxy external-HCJ2763A-tel/sig/sctp/m3ua jump mark-for-masquerade
add rule ip kube-proxy external-HCJ2763A-tel/sig/sctp/m3ua goto service-HCJ2763A-tel/sig/sctp/m3ua
add rule ip kube-proxy service-HCJ2763A-tel/sig/sctp/m3ua ip daddr 172.30.20.7 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
add rule ip kube-proxy service-HCJ2763A-tel/sig/sctp/m3ua numgen random mod 1 vmap { 0 : goto endpoint-MW3PJS7K-tel/sig/sctp/m3ua__10.244.3.4/2905 }
add element ip kube-proxy cluster-ips { 172.30.20.7 }
add element ip kube-proxy service-ips { 172.30.20.7 . sctp . 2905 : goto service-HCJ2763A-tel/sig/sctp/m3ua }
add element ip kube-proxy service-nodeports { sctp . 30905 : goto external-HCJ2763A-tel/sig/sctp/m3ua }`),
    );
  });

  const EDGE = `
add chain ip kube-proxy endpoint-C3IA252N-edge/ing/tcp/https__10.244.1.20/8443
add chain ip kube-proxy endpoint-TXDSUXOK-edge/ing/tcp/https__10.244.2.21/8443
add chain ip kube-proxy external-JFCYBTS6-edge/ing/tcp/https
add chain ip kube-proxy local-JFCYBTS6-edge/ing/tcp/https
add chain ip kube-proxy service-JFCYBTS6-edge/ing/tcp/https
add rule ip kube-proxy endpoint-C3IA252N-edge/ing/tcp/https__10.244.1.20/8443 ip saddr 10.244.1.20 jump mark-for-masquerade
add rule ip kube-proxy endpoint-C3IA252N-edge/ing/tcp/https__10.244.1.20/8443 meta l4proto tcp dnat to 10.244.1.20:8443
add rule ip kube-proxy endpoint-TXDSUXOK-edge/ing/tcp/https__10.244.2.21/8443 ip saddr 10.244.2.21 jump mark-for-masquerade
add rule ip kube-proxy endpoint-TXDSUXOK-edge/ing/tcp/https__10.244.2.21/8443 meta l4proto tcp dnat to 10.244.2.21:8443
add rule ip kube-proxy external-JFCYBTS6-edge/ing/tcp/https ip saddr 10.0.0.0/8 goto service-JFCYBTS6-edge/ing/tcp/https comment "short-circuit pod traffic"
add rule ip kube-proxy external-JFCYBTS6-edge/ing/tcp/https fib saddr type local jump mark-for-masquerade comment "masquerade local traffic"
add rule ip kube-proxy external-JFCYBTS6-edge/ing/tcp/https fib saddr type local goto service-JFCYBTS6-edge/ing/tcp/https comment "short-circuit local traffic"
add rule ip kube-proxy external-JFCYBTS6-edge/ing/tcp/https goto local-JFCYBTS6-edge/ing/tcp/https
add rule ip kube-proxy local-JFCYBTS6-edge/ing/tcp/https numgen random mod 1 vmap { 0 : goto endpoint-TXDSUXOK-edge/ing/tcp/https__10.244.2.21/8443 }
add rule ip kube-proxy service-JFCYBTS6-edge/ing/tcp/https ip daddr 172.30.30.9 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
add rule ip kube-proxy service-JFCYBTS6-edge/ing/tcp/https numgen random mod 2 vmap { 0 : goto endpoint-C3IA252N-edge/ing/tcp/https__10.244.1.20/8443 , 1 : goto endpoint-TXDSUXOK-edge/ing/tcp/https__10.244.2.21/8443 }
add element ip kube-proxy cluster-ips { 172.30.30.9 }
add element ip kube-proxy service-ips { 172.30.30.9 . tcp . 443 : goto service-JFCYBTS6-edge/ing/tcp/https }
add element ip kube-proxy service-ips { 198.51.100.10 . tcp . 443 : goto external-JFCYBTS6-edge/ing/tcp/https }
add element ip kube-proxy service-nodeports { tcp . 31443 : goto external-JFCYBTS6-edge/ing/tcp/https }`;

  test("11.3 LoadBalancer with externalTrafficPolicy: Local", () => {
    expect(ownLines(edgeIng(["10.244.1.20@node-b", "10.244.2.21@test-node"]))).toEqual(lines(EDGE));
  });

  test("11.3 without the local endpoint: no local chain, drop elements", () => {
    const got = ownLines(edgeIng(["10.244.1.20@node-b"]));
    const expected = lines(EDGE)
      .map((l) =>
        l.replace(
          /numgen random mod 2 vmap \{ 0 : goto (\S+) , 1 : goto \S+ \}/,
          "numgen random mod 1 vmap { 0 : goto $1 }",
        ),
      )
      .filter((l) => !l.includes("TXDSUXOK") && !l.includes("local-JFCYBTS6"));
    expected.push(
      'add element ip kube-proxy no-endpoint-nodeports { tcp . 31443 comment "edge/ing:https" : drop }',
      'add element ip kube-proxy no-endpoint-services { 198.51.100.10 . tcp . 443 comment "edge/ing:https" : drop }',
    );
    expect(got).toEqual(sortNftablesTransaction(expected.join("\n")).split("\n"));
  });
});
