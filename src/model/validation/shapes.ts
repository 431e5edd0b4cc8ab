/**
 * The field shapes of the nine kinds (the subset of their OpenAPI schemas kube-netsim needs to
 * decode them like the API server). Fields that exist upstream but that kube-netsim never reads
 * are listed as `ANY` so they are accepted without an unknown-field warning.
 */
import type { KindName } from "../kinds.js";
import { clusterNetworkPolicyShape } from "./cluster-network-policy-shape.js";
import {
  ANY,
  anyOf,
  BOOL,
  INT,
  INT_OR_STR,
  list,
  map,
  obj,
  openObj,
  STR,
  type Shape,
} from "./shape.js";

const STRINGS = list(STR);
const LABELS = map(STR);

export const LABEL_SELECTOR = obj({
  matchLabels: LABELS,
  matchExpressions: list(obj({ key: STR, operator: STR, values: STRINGS })),
});

const OWNER_REFERENCE = obj({
  apiVersion: STR,
  kind: STR,
  name: STR,
  uid: STR,
  controller: BOOL,
  blockOwnerDeletion: BOOL,
});

const OBJECT_META = obj({
  name: STR,
  generateName: STR,
  namespace: STR,
  labels: LABELS,
  annotations: LABELS,
  ownerReferences: list(OWNER_REFERENCE),
  ...anyOf(
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "finalizers",
    "managedFields",
  ),
});

const OBJECT_REFERENCE = openObj({
  kind: STR,
  namespace: STR,
  name: STR,
  uid: STR,
  apiVersion: STR,
});

const TOP = { apiVersion: STR, kind: STR, metadata: OBJECT_META };

const PROTOCOL = STR;

// ---- Pod ----
const CONTAINER_PORT = obj({
  name: STR,
  hostPort: INT,
  containerPort: INT,
  protocol: PROTOCOL,
  hostIP: STR,
});

const CONTAINER = obj({
  name: STR,
  ports: list(CONTAINER_PORT),
  ...anyOf(
    "image",
    "command",
    "args",
    "workingDir",
    "envFrom",
    "env",
    "resources",
    "resizePolicy",
    "restartPolicy",
    "restartPolicyRules",
    "volumeMounts",
    "volumeDevices",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "lifecycle",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "imagePullPolicy",
    "securityContext",
    "stdin",
    "stdinOnce",
    "tty",
  ),
});

const POD_IP = obj({ ip: STR });

const POD = {
  ...TOP,
  spec: obj({
    containers: list(CONTAINER),
    initContainers: list(CONTAINER),
    ephemeralContainers: list(openObj({ name: STR })),
    hostNetwork: BOOL,
    nodeName: STR,
    ...anyOf(
      "volumes",
      "restartPolicy",
      "terminationGracePeriodSeconds",
      "activeDeadlineSeconds",
      "dnsPolicy",
      "nodeSelector",
      "serviceAccountName",
      "serviceAccount",
      "automountServiceAccountToken",
      "hostPID",
      "hostIPC",
      "shareProcessNamespace",
      "securityContext",
      "imagePullSecrets",
      "hostname",
      "hostnameOverride",
      "subdomain",
      "affinity",
      "schedulerName",
      "tolerations",
      "hostAliases",
      "priorityClassName",
      "priority",
      "dnsConfig",
      "readinessGates",
      "runtimeClassName",
      "enableServiceLinks",
      "preemptionPolicy",
      "overhead",
      "topologySpreadConstraints",
      "setHostnameAsFQDN",
      "os",
      "hostUsers",
      "schedulingGates",
      "resourceClaims",
      "resources",
    ),
  }),
  status: obj({
    phase: STR,
    hostIP: STR,
    hostIPs: list(POD_IP),
    podIP: STR,
    podIPs: list(POD_IP),
    ...anyOf(
      "conditions",
      "message",
      "reason",
      "nominatedNodeName",
      "startTime",
      "initContainerStatuses",
      "containerStatuses",
      "ephemeralContainerStatuses",
      "qosClass",
      "resize",
      "resourceClaimStatuses",
      "observedGeneration",
      "extendedResourceClaimStatus",
    ),
  }),
};

// ---- Service ----
const SERVICE_PORT = obj({
  name: STR,
  protocol: PROTOCOL,
  appProtocol: STR,
  port: INT,
  targetPort: INT_OR_STR,
  nodePort: INT,
});

const SERVICE = {
  ...TOP,
  spec: obj({
    ports: list(SERVICE_PORT),
    selector: LABELS,
    clusterIP: STR,
    clusterIPs: STRINGS,
    type: STR,
    externalIPs: STRINGS,
    sessionAffinity: STR,
    loadBalancerIP: STR,
    loadBalancerSourceRanges: STRINGS,
    externalName: STR,
    externalTrafficPolicy: STR,
    healthCheckNodePort: INT,
    publishNotReadyAddresses: BOOL,
    sessionAffinityConfig: obj({ clientIP: obj({ timeoutSeconds: INT }) }),
    ipFamilies: STRINGS,
    ipFamilyPolicy: STR,
    allocateLoadBalancerNodePorts: BOOL,
    loadBalancerClass: STR,
    internalTrafficPolicy: STR,
    trafficDistribution: STR,
  }),
  status: obj({
    loadBalancer: obj({
      ingress: list(
        obj({
          ip: STR,
          hostname: STR,
          ipMode: STR,
          ports: list(obj({ port: INT, protocol: PROTOCOL, error: STR })),
        }),
      ),
    }),
    conditions: ANY,
  }),
};

// ---- Node, Namespace ----
const NODE = {
  ...TOP,
  spec: obj({
    podCIDR: STR,
    podCIDRs: STRINGS,
    ...anyOf("providerID", "unschedulable", "taints", "configSource", "externalID"),
  }),
  status: obj({
    addresses: list(obj({ type: STR, address: STR })),
    ...anyOf(
      "capacity",
      "allocatable",
      "phase",
      "conditions",
      "daemonEndpoints",
      "nodeInfo",
      "images",
      "volumesInUse",
      "volumesAttached",
      "config",
      "runtimeHandlers",
      "features",
      "declaredFeatures",
    ),
  }),
};

const NAMESPACE = {
  ...TOP,
  spec: obj({ finalizers: STRINGS }),
  status: obj({ phase: STR, conditions: ANY }),
};

// ---- EndpointSlice, Endpoints ----
const FOR_NAMES = list(obj({ name: STR }));
const ENDPOINT_SLICE = {
  ...TOP,
  addressType: STR,
  endpoints: list(
    obj({
      addresses: STRINGS,
      conditions: obj({ ready: BOOL, serving: BOOL, terminating: BOOL }),
      hostname: STR,
      targetRef: OBJECT_REFERENCE,
      deprecatedTopology: LABELS,
      nodeName: STR,
      zone: STR,
      hints: obj({ forZones: FOR_NAMES, forNodes: FOR_NAMES }),
    }),
  ),
  ports: list(obj({ name: STR, protocol: PROTOCOL, port: INT, appProtocol: STR })),
};

const ENDPOINT_ADDRESS = obj({
  ip: STR,
  hostname: STR,
  nodeName: STR,
  targetRef: OBJECT_REFERENCE,
});
const ENDPOINTS = {
  ...TOP,
  subsets: list(
    obj({
      addresses: list(ENDPOINT_ADDRESS),
      notReadyAddresses: list(ENDPOINT_ADDRESS),
      ports: list(obj({ name: STR, port: INT, protocol: PROTOCOL, appProtocol: STR })),
    }),
  ),
};

// ---- NetworkPolicy ----
const NP_PORT = obj({ protocol: PROTOCOL, port: INT_OR_STR, endPort: INT });
const NP_PEER = obj({
  podSelector: LABEL_SELECTOR,
  namespaceSelector: LABEL_SELECTOR,
  ipBlock: obj({ cidr: STR, except: STRINGS }),
});
const NETWORK_POLICY = {
  ...TOP,
  spec: obj({
    podSelector: LABEL_SELECTOR,
    ingress: list(obj({ ports: list(NP_PORT), from: list(NP_PEER) })),
    egress: list(obj({ ports: list(NP_PORT), to: list(NP_PEER) })),
    policyTypes: STRINGS,
  }),
  status: ANY,
};

// ---- AdminNetworkPolicy, BaselineAdminNetworkPolicy (v1alpha1) ----
const NAMESPACED_POD = obj({ namespaceSelector: LABEL_SELECTOR, podSelector: LABEL_SELECTOR });
const ANP_SUBJECT = obj({ namespaces: LABEL_SELECTOR, pods: NAMESPACED_POD });
const ANP_PORT = obj({
  portNumber: obj({ protocol: PROTOCOL, port: INT }),
  namedPort: STR,
  portRange: obj({ protocol: PROTOCOL, start: INT, end: INT }),
});
const INGRESS_PEER = obj({ namespaces: LABEL_SELECTOR, pods: NAMESPACED_POD });
const EGRESS_PEER = obj({
  namespaces: LABEL_SELECTOR,
  pods: NAMESPACED_POD,
  nodes: LABEL_SELECTOR,
  networks: STRINGS,
  domainNames: STRINGS,
});
const ingressRules = list(
  obj({ name: STR, action: STR, from: list(INGRESS_PEER), ports: list(ANP_PORT) }),
);
const egressRules = list(
  obj({ name: STR, action: STR, to: list(EGRESS_PEER), ports: list(ANP_PORT) }),
);
const ANP = {
  ...TOP,
  spec: obj({ priority: INT, subject: ANP_SUBJECT, ingress: ingressRules, egress: egressRules }),
  status: ANY,
};
const BANP = {
  ...TOP,
  spec: obj({ subject: ANP_SUBJECT, ingress: ingressRules, egress: egressRules }),
  status: ANY,
};

export const KIND_SHAPES: Readonly<Record<KindName, Readonly<Record<string, Shape>>>> = {
  Namespace: NAMESPACE,
  Node: NODE,
  Pod: POD,
  Service: SERVICE,
  Endpoints: ENDPOINTS,
  EndpointSlice: ENDPOINT_SLICE,
  NetworkPolicy: NETWORK_POLICY,
  AdminNetworkPolicy: ANP,
  BaselineAdminNetworkPolicy: BANP,
  ClusterNetworkPolicy: clusterNetworkPolicyShape(TOP, LABEL_SELECTOR),
  ServiceCIDR: { ...TOP, spec: obj({ cidrs: STRINGS }), status: ANY },
};
