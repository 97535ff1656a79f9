/** The browser entry: reads `/config.json` (written from `keyhold serve`'s listening line). */
import '@turnkey/react-wallet-kit/styles.css';
import { createRoot } from 'react-dom/client';
import { App } from './app.js';
import type { WalletKitConfig } from './wallet-kit-config.js';

const config = (await (await fetch('/config.json')).json()) as WalletKitConfig;
createRoot(document.getElementById('root')!).render(<App config={config} />);
