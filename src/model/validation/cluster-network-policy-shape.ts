/**
 * The field shape of ClusterNetworkPolicy (policy.networking.k8s.io/v1alpha2), the union of both
 * CRD channels: fields only the experimental channel has are accepted here and rejected by
 * validation when the standard channel is selected (cluster-network-policy.ts), with a message
 * that names the channel rather than an unknown-field warning.
 */
import { ANY, INT, list, obj, STR, type Shape } from "./shape.js";

export function clusterNetworkPolicyShape(
  top: Readonly<Record<string, Shape>>,
  labelSelector: Shape,
): Readonly<Record<string, Shape>> {
  const strings = list(STR);
  const namespacedPod = obj({ namespaceSelector: labelSelector, podSelector: labelSelector });
  const port = obj({ number: INT, range: obj({ start: INT, end: INT }) });
  const protocolPort = obj({ destinationPort: port });
  const protocol = obj({
    tcp: protocolPort,
    udp: protocolPort,
    sctp: protocolPort,
    destinationNamedPort: STR,
  });
  const ingressPeer = obj({ namespaces: labelSelector, pods: namespacedPod });
  const egressPeer = obj({
    namespaces: labelSelector,
    pods: namespacedPod,
    nodes: labelSelector,
    networks: strings,
    domainNames: strings,
  });
  return {
    ...top,
    spec: obj({
      tier: STR,
      priority: INT,
      subject: obj({ namespaces: labelSelector, pods: namespacedPod }),
      ingress: list(
        obj({ name: STR, action: STR, from: list(ingressPeer), protocols: list(protocol) }),
      ),
      egress: list(
        obj({ name: STR, action: STR, to: list(egressPeer), protocols: list(protocol) }),
      ),
    }),
    status: ANY,
  };
}
