/**
 * The pinned release of the real control plane: every binary `npm run cluster` runs is
 * built from these Go modules, once, and cached under a folder named after them.
 * kube-apiserver, kube-controller-manager and kube-scheduler come from one
 * `k8s.io/kubernetes` release; etcd from the 3.6 line kubeadm pairs with 1.34–1.36 (the
 * release `k8s.io/kubernetes` v1.36.3's own go.mod requires); kwok from the release
 * built against the same `k8s.io/*` v0.36 modules.
 */

/** One Go module and the packages built from it. */
export interface GoComponent {
  readonly module: string;
  readonly version: string;
  /** Binary name → Go package path. */
  readonly binaries: Readonly<Record<string, string>>;
  /**
   * `k8s.io/kubernetes` requires its staging modules at v0.0.0 and replaces them with
   * folders of its own repository, which a dependent module cannot see: the wrapper
   * module replaces each with the published `v0.<minor>.<patch>` of the same release.
   */
  readonly stagingVersion?: string;
  /** `-X` settings for the linker: what the release's own build stamps (the version the server reports). */
  readonly stamps?: Readonly<Record<string, string>>;
  /**
   * The module's own go.mod `replace` directives, which `go` ignores in a dependency,
   * copied into the wrapper module: a module built against another Kubernetes release
   * (scheduler-plugins) pins its `k8s.io/*` modules there.
   */
  readonly replacesFromGoMod?: boolean;
  /**
   * Module → version used instead of the one its go.mod's `replace` names, for a version
   * the module proxy does not serve (each with the reason, in a comment where it is set).
   */
  readonly replaceOverrides?: Readonly<Record<string, string>>;
}

/** The version variables Kubernetes' build (hack/lib/version.sh) stamps into both packages that report it. */
function kubernetesStamps(version: string): Record<string, string> {
  const [major = "", minor = ""] = version.replace(/^v/, "").split(".");
  const stamps: Record<string, string> = {};
  for (const pkg of ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"]) {
    Object.assign(stamps, { [`${pkg}.gitVersion`]: version, [`${pkg}.gitMajor`]: major, [`${pkg}.gitMinor`]: minor, [`${pkg}.gitTreeState`]: "clean", [`${pkg}.buildDate`]: "1970-01-01T00:00:00Z" });
  }
  return stamps;
}

export const KUBERNETES: GoComponent = {
  module: "k8s.io/kubernetes",
  version: "v1.36.3",
  stagingVersion: "v0.36.3",
  stamps: kubernetesStamps("v1.36.3"),
  binaries: {
    "kube-apiserver": "k8s.io/kubernetes/cmd/kube-apiserver",
    "kube-controller-manager": "k8s.io/kubernetes/cmd/kube-controller-manager",
    "kube-scheduler": "k8s.io/kubernetes/cmd/kube-scheduler",
  },
};

export const ETCD: GoComponent = {
  module: "go.etcd.io/etcd/server/v3",
  version: "v3.6.8",
  binaries: { etcd: "go.etcd.io/etcd/server/v3" },
};

export const KWOK: GoComponent = {
  module: "sigs.k8s.io/kwok",
  version: "v0.8.0",
  binaries: { kwok: "sigs.k8s.io/kwok/cmd/kwok" },
};

/**
 * A peer, not part of the control plane: kube-scheduler with the out-of-tree plugins of
 * `sigs.k8s.io/scheduler-plugins` (coscheduling among them), built against Kubernetes
 * 1.34 (its go.mod pins `k8s.io/kubernetes` v1.34.7 and every `k8s.io/*` module at
 * v0.34.7 through `replace`). v0.34.7 is the newest release the module proxy serves
 * (v0.35.0 is refused). Built into a cache folder of its own (`releaseKey([SCHEDULER_PLUGINS])`).
 */
export const SCHEDULER_PLUGINS: GoComponent = {
  module: "sigs.k8s.io/scheduler-plugins",
  version: "v0.34.7",
  replacesFromGoMod: true,
  // The proxy answers `403 Forbidden: This module version is not available` for
  // k8s.io/csi-translation-lib v0.34.7 (its version list skips from v0.34.5 to v0.34.8), which
  // kube-scheduler's nodevolumelimits plugin imports: the next patch of the same minor instead.
  replaceOverrides: { "k8s.io/csi-translation-lib": "v0.34.8" },
  // Not stamped: its Makefile stamps gitVersion with its own tag (v0.34.7), which component-base
  // reads as Kubernetes 0.34 and refuses ("emulation version 0.34 is not between [1.31, 0.34.0]");
  // unstamped, the binary reports the 1.34 it is built from (component-base's default).
  binaries: { "kube-scheduler": "sigs.k8s.io/scheduler-plugins/cmd/scheduler" },
};

/**
 * A peer, not part of the control plane: upstream Sedna's GlobalManager, v0.7.0, the
 * release with the controller-enhancement proposal's self-healing (a training pod or a
 * JointInferenceService's Deployment recreated when deleted). Its go.mod (go 1.22.9)
 * requires `k8s.io/api`, `apimachinery`, `client-go` and `component-base` v0.30.7 and has
 * no `replace`; every module it names is served here except `github.com/kubeedge/sedna`
 * itself, which the module proxy refuses (403 "This module version is not available";
 * ADR 0029), so this build fails with that one line. The Sedna beside-GM bench then takes
 * a GM built by hand from upstream's source (EDGELOOP_BENCH_GM_BINARY,
 * EDGELOOP_BENCH_GM_SOURCE; `test/bench/sedna-gm/gm.ts`) or measures edgeloop alone.
 */
export const SEDNA_GM: GoComponent = {
  module: "github.com/kubeedge/sedna",
  version: "v0.7.0",
  replacesFromGoMod: true,
  binaries: { "sedna-gm": "github.com/kubeedge/sedna/cmd/sedna-gm" },
};

/** Every component, in build order (the longest first, so its progress is seen first). */
export const COMPONENTS: readonly GoComponent[] = [KUBERNETES, ETCD, KWOK];

/** How the binaries are built, beyond the pins: bumped when a change of recipe must not reuse an older build. */
const RECIPE = 2;

/** The cache folder's name: changes whenever a pin or the recipe does, so an old build is never reused. */
export function releaseKey(components: readonly GoComponent[] = COMPONENTS): string {
  return [...components.map((c) => `${c.module.split("/").at(-1) === "v3" ? "etcd" : c.module.split("/").at(-1)}-${c.version}`), `r${RECIPE}`].join("_");
}
