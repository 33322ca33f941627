// What Pi loads from this package (package.json `pi.extensions`). The file sits at the package
// root so that Pi's list of loaded extensions names it after the package (`pi-watchdog`) and not
// after a file (`extension.ts`); the extension itself is src/extension.ts.
export { createWatchdogExtension, default } from "./src/extension.ts";
