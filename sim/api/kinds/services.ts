/** core/v1 Service: a ClusterIP allocated on create, DNS-1035 names, its spec's ports validated. */
import type { KubeObject } from "../../../protocol/index.ts";
import { defaultService, withIpMode } from "../../pipeline/defaults.ts";
import { dns1035Name } from "../../../protocol/kube/names.ts";
import { validateServiceSpec } from "../../pipeline/validation.ts";
import { asObj, type Obj } from "../objects.ts";
import { builtinKind, type BuiltinKind } from "./kind.ts";

/** Services. */
export const SERVICE: BuiltinKind = builtinKind(
  { group: "", version: "v1", kind: "Service", plural: "services", namespaced: true, shortNames: ["svc"], categories: ["all"], status: true },
  {
    nameRule: dns1035Name,
    returnsDeletedObject: true,
    defaultCreate: (service, write) => defaultService(service, write.server.allocateIp),
    defaultUpdate: (service) => withIpMode(service as KubeObject & Obj),
    validate: (service) => validateServiceSpec(asObj((service as KubeObject & Obj).spec)),
  },
);
