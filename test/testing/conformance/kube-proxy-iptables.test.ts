// kube-netsim's own model of this dataplane passes the SCTP test plan (issue 13 §6).
import {
  describeServiceConformance,
  describeSctpConformance,
  kubeProxyIptables,
} from "../../../src/testing/index.js";

describeSctpConformance(kubeProxyIptables);
describeServiceConformance(kubeProxyIptables, { numRuns: 10 });
