/**
 * Feature gates locked to their default (`LockToDefault: true`) at the modelled Kubernetes
 * version, as kube-proxy registers them: its own `pkg/features` map
 * (`defaultVersionedKubernetesFeatureGates`), which also relists the inherited
 * k8s.io/apiserver and apiextensions-apiserver gates. component-base's featuregate refuses
 * setting any of them to the other value, whatever the gate does.
 *
 * Source: kubernetes/kubernetes pkg/features/kube_features.go at commit
 * b0b89d3bd251db932ed5a7bef66039fb88acab64, the newest stored copy, which is the 1.33 release
 * line (its newest entries are 1.33), OLDER than the modelled 1.34: gates first locked in 1.34
 * are missing here unless listed for another reason below, and gates this copy still lists
 * but 1.34 removed ("remove in 1.33" comments) give "unrecognized feature gate" upstream
 * instead of "feature is locked".
 * `value` is the locked default, `since` the release of the locking entry.
 */
export const LOCKED_FEATURE_GATE_TABLE: Readonly<
  Record<string, { readonly value: boolean; readonly since: string }>
> = {
  AllowServiceLBStatusOnNonLB: { value: false, since: "1.32" },
  AnyVolumeDataSource: { value: true, since: "1.33" },
  BtreeWatchCache: { value: true, since: "1.33" },
  CPUManagerPolicyOptions: { value: true, since: "1.33" },
  CRDValidationRatcheting: { value: true, since: "1.33" },
  CronJobsScheduledAnnotation: { value: true, since: "1.32" },
  CSIMigrationPortworx: { value: true, since: "1.33" },
  CustomResourceFieldSelectors: { value: true, since: "1.32" },
  DevicePluginCDIDevices: { value: true, since: "1.31" },
  ElasticIndexedJob: { value: true, since: "1.31" },
  HonorPVReclaimPolicy: { value: true, since: "1.33" },
  JobBackoffLimitPerIndex: { value: true, since: "1.33" },
  JobSuccessPolicy: { value: true, since: "1.33" },
  /**
   * Not in the stored 1.33 copy (GA and locked in 1.31 per the earlier table; upstream removes a
   * gate some releases after locking it). Kept from the earlier table.
   */
  KubeProxyDrainingTerminatingNodes: { value: true, since: "1.31" },
  LoadBalancerIPMode: { value: true, since: "1.32" },
  LogarithmicScaleDown: { value: true, since: "1.31" },
  MatchLabelKeysInPodAffinity: { value: true, since: "1.33" },
  MemoryManager: { value: true, since: "1.32" },
  /**
   * GA in 1.33 with `LockToDefault: false` in the stored copy; locked from 1.34 per the earlier
   * table (not verifiable from the stored copy).
   */
  MultiCIDRServiceAllocator: { value: true, since: "1.34" },
  NFTablesProxyMode: { value: true, since: "1.33" },
  NodeInclusionPolicyInPodTopologySpread: { value: true, since: "1.33" },
  PodDisruptionConditions: { value: true, since: "1.31" },
  PodIndexLabel: { value: true, since: "1.32" },
  PodSchedulingReadiness: { value: true, since: "1.30" },
  RecursiveReadOnlyMounts: { value: true, since: "1.33" },
  RetryGenerateName: { value: true, since: "1.32" },
  ServiceAccountTokenJTI: { value: true, since: "1.32" },
  ServiceAccountTokenNodeBinding: { value: true, since: "1.33" },
  ServiceAccountTokenNodeBindingValidation: { value: true, since: "1.32" },
  ServiceAccountTokenPodNodeInfo: { value: true, since: "1.32" },
  ServiceTrafficDistribution: { value: true, since: "1.33" },
  SidecarContainers: { value: true, since: "1.33" },
  SizeMemoryBackedVolumes: { value: true, since: "1.32" },
  StatefulSetAutoDeletePVC: { value: true, since: "1.32" },
  StatefulSetStartOrdinal: { value: true, since: "1.31" },
  StrictCostEnforcementForVAP: { value: true, since: "1.32" },
  StrictCostEnforcementForWebhooks: { value: true, since: "1.32" },
  StructuredAuthorizationConfiguration: { value: true, since: "1.32" },
  TopologyAwareHints: { value: true, since: "1.33" },
  /** Deprecated and locked off. */
  WatchFromStorageWithoutResourceVersion: { value: false, since: "1.33" },
};
