/**
 * apiextensions.k8s.io/v1 CustomResourceDefinition: its defaults and checks, and what a
 * committed CRD sets off: its kind served (the status Established) or, once it is being
 * deleted or gone, no longer served, its objects gone with it.
 */
import type { KubeObject } from "../../../protocol/index.ts";
import { checkCrd, establishedStatus, resourceOfCrd } from "../../crd/serving.ts";
import { defaultCrd } from "../../pipeline/defaults.ts";
import type { Cause } from "../../pipeline/errors.ts";
import type { Registry } from "../../registry/registry.ts";
import { storageKey } from "../../registry/resource.ts";
import type { Server } from "../write.ts";
import { timestamp, type Obj } from "../objects.ts";
import { builtinKind, type BuiltinKind } from "./kind.ts";

const CRDS = "apiextensions.k8s.io/customresourcedefinitions";

/** The CRD's field errors, and its plural taken by another resource. */
function crdCauses(crd: KubeObject, registry: Registry): Cause[] {
  const checked = checkCrd(crd);
  if ("causes" in checked) return checked.causes;
  if (!registry.conflicts(checked.spec.group, checked.spec.names.plural, crd.metadata.name ?? "")) return [];
  return [{ field: "spec.names.plural", reason: "FieldValueInvalid", message: `Invalid value: "${checked.spec.names.plural}": is already served by another resource` }];
}

/** A CRD starts (or goes on) serving its kind; its status says it is Established. */
function serve(crd: KubeObject, server: Server): void {
  const checked = checkCrd(crd);
  if ("causes" in checked) return;
  const name = crd.metadata.name ?? "";
  server.registry.serveCrd(name, resourceOfCrd(name, checked.spec));
  const status = establishedStatus(checked.spec, timestamp(server.now()), (crd as Obj).status);
  if (JSON.stringify(status) !== JSON.stringify((crd as Obj).status)) server.store.commit(CRDS, "MODIFIED", { ...crd, status } as KubeObject);
}

/** A deleted CRD stops serving its kind; its objects go with it (each with a DELETED event). */
function unserve(crd: KubeObject, server: Server): void {
  const served = server.registry.unserveCrd(crd.metadata.name ?? "");
  if (!served) return;
  const key = storageKey(served);
  for (const stored of server.store.list(key)) server.store.commit(key, "DELETED", stored.object);
  server.store.dropTable(key);
  if (crd.metadata.deletionTimestamp && (crd.metadata.finalizers ?? []).length === 0) server.store.commit(CRDS, "DELETED", crd);
}

/** CustomResourceDefinitions. */
export const CRD: BuiltinKind = builtinKind(
  { group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition", plural: "customresourcedefinitions", namespaced: false, shortNames: ["crd", "crds"], categories: ["api-extensions"], status: true, generation: true },
  {
    defaultCreate: defaultCrd,
    validate: (crd, _old, registry) => crdCauses(crd, registry),
    validateSubresource: (crd, _old, registry) => crdCauses(crd, registry),
    committed: (type, crd, server) => (type === "DELETED" || crd.metadata.deletionTimestamp ? unserve(crd, server) : serve(crd, server)),
  },
);
