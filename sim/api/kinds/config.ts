/** core/v1 ConfigMap and Secret: valid keys, empty data maps left out, a Secret's stringData, type and per-type keys. */
import type { KubeObject } from "../../../protocol/index.ts";
import { defaultSecret, dropEmpty, secretData } from "../../pipeline/defaults.ts";
import { validateKeys, validateSecretType, validateSecretUpdate } from "../../pipeline/validation.ts";
import type { Obj } from "../objects.ts";
import { builtinKind, type BuiltinKind } from "./kind.ts";

/** The maps kube-apiserver encodes with `omitempty` in both kinds. */
const DATA = ["data", "binaryData"];
const withoutEmptyData = (object: KubeObject): KubeObject => dropEmpty(object, DATA);

/** ConfigMaps. */
export const CONFIG_MAP: BuiltinKind = builtinKind(
  { group: "", version: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true, shortNames: ["cm"] },
  {
    validate: (configMap) => validateKeys(configMap as KubeObject & Obj, DATA),
    canonicalize: withoutEmptyData,
  },
);

/** Secrets. */
export const SECRET: BuiltinKind = builtinKind(
  { group: "", version: "v1", kind: "Secret", plural: "secrets", namespaced: true, fields: ["type"] },
  {
    defaultCreate: defaultSecret,
    defaultUpdate: (secret) => secretData(secret as KubeObject & Obj),
    // ValidateSecretUpdate's immutable type is reported before the type's own rules.
    validate: (secret, old) => {
      const o = secret as KubeObject & Obj;
      return [...(old ? validateSecretUpdate(o, old as KubeObject & Obj) : []), ...validateKeys(o, ["data", "stringData"]), ...validateSecretType(o)];
    },
    canonicalize: withoutEmptyData,
  },
);
