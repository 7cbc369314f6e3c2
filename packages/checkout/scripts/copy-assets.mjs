// The page's stylesheet and browser script are read at run time beside the compiled module
// (`new URL(name, import.meta.url)`), so the build copies them into dist/ as they are.
import { cpSync } from 'node:fs';

const assets = ['checkout-page.css', 'client/checkout-page.client.js'];
for (const asset of assets) {
  cpSync(new URL(`../src/${asset}`, import.meta.url), new URL(`../dist/${asset}`, import.meta.url));
}
