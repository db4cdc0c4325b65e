/// <reference types="vite/client" />

interface ImportMetaEnv {
  readonly CONSOLE_VERSION: string;
  readonly CONSOLE_GIT_SHA: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
