import { apiVersionOf, splitApiVersion } from "../../protocol/kube/api-version.ts";
import type { ResourceType } from "./resource.ts";

/** The served resources: the built-ins plus one entry per established CRD. */
export class Registry {
  readonly #builtins: readonly ResourceType[];
  readonly #crds = new Map<string, ResourceType>();

  /** `builtins`: the built-in resources, in the order discovery lists them (the sim's kind registry, sim/api/kinds/). */
  constructor(builtins: readonly ResourceType[]) {
    this.#builtins = builtins;
  }

  /** Every served resource, built-ins first. */
  all(): ResourceType[] {
    return [...this.#builtins, ...this.#crds.values()];
  }

  /** The resource served at `group/version/plural`. */
  byPath(group: string, version: string, plural: string): ResourceType | undefined {
    return this.all().find((r) => r.group === group && r.plural === plural && r.versions.includes(version));
  }

  /** The resource of a kind at an apiVersion. */
  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    const { group, version } = splitApiVersion(apiVersion);
    return this.all().find((r) => r.group === group && r.kind === kind && r.versions.includes(version));
  }

  /** Serves (or re-serves) the kind a CRD names. */
  serveCrd(crdName: string, type: ResourceType): void {
    this.#crds.set(crdName, type);
  }

  /** Stops serving a CRD's kind; returns what it served. */
  unserveCrd(crdName: string): ResourceType | undefined {
    const type = this.#crds.get(crdName);
    this.#crds.delete(crdName);
    return type;
  }

  /** Whether a group/plural is already taken by another resource than the CRD named. */
  conflicts(group: string, plural: string, crdName: string): boolean {
    return this.all().some((r) => r.group === group && r.plural === plural && r.crd?.crdName !== crdName);
  }

  /** The API groups (core excluded) with their versions, in registration order. */
  groups(): { name: string; versions: string[] }[] {
    const groups = new Map<string, Set<string>>();
    for (const r of this.all()) {
      if (r.group === "") continue;
      const versions = groups.get(r.group) ?? new Set<string>();
      for (const v of r.versions) versions.add(v);
      groups.set(r.group, versions);
    }
    return [...groups].map(([name, versions]) => ({ name, versions: [...versions] }));
  }

  /** The resources served at one group/version. */
  inGroupVersion(group: string, version: string): ResourceType[] {
    return this.all().filter((r) => r.group === group && r.versions.includes(version));
  }

  /** The preferred version of a group. */
  preferredVersion(group: string): string | undefined {
    const found = this.all().find((r) => r.group === group);
    return found?.version;
  }
}

/** The apiVersion an object of this resource carries when served at `version`. */
export function objectApiVersion(type: ResourceType, version: string = type.version): string {
  return apiVersionOf(type.group, version);
}
