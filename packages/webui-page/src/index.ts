export type { PageEntry, PageIcon } from "./entry.js";
export { renderPage } from "./page.js";
export { pageSecurityHeaders, type PageSecurityHeaders } from "./csp.js";
export { writePage } from "./write.js";
export { FAVICON_SVG } from "./icon.js";
export { THEME_TOKENS, tokenVar } from "./theme.js";
