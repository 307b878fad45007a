// What the build defines in the runtime's bundles (js/build's bundle):
// the modules name it, and run unbundled under Node's test runner without it.

/** The runtime's version, package.json's; undefined outside a bundle. */
declare const VEIL_VERSION: string | undefined;
