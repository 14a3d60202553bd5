/** Generated at bundle time: the default export of every controller folder. */
declare module "edgeloop:controllers" {
  import type { Controller } from "./kit/controller.ts";
  const controllers: readonly Controller[];
  export default controllers;
}
