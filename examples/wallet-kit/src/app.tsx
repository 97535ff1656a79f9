/**
 * The embedded wallet: Turnkey's React Wallet Kit, unchanged, pointed at Keyhold. Log in or
 * sign up (email code or passkey) through the kit's modal, create a wallet, sign a message,
 * export the wallet through the self-hosted frame, log out.
 */
import {
  AuthState,
  ClientState,
  TurnkeyProvider,
  useTurnkey,
  type Wallet,
} from '@turnkey/react-wallet-kit';
import { useState } from 'react';
import { MESSAGE } from './message.js';
import type { WalletKitConfig } from './wallet-kit-config.js';

const embeddedEthereumAccount = (wallets: Wallet[], walletId: string | undefined) =>
  wallets
    .find((w) => w.walletId === walletId)
    ?.accounts.find((a) => a.addressFormat === 'ADDRESS_FORMAT_ETHEREUM');

function WalletScreen() {
  const {
    clientState,
    authState,
    session,
    user,
    wallets,
    handleLogin,
    createWallet,
    refreshWallets,
    handleSignMessage,
    handleExportWallet,
    logout,
  } = useTurnkey();
  const [walletId, setWalletId] = useState<string>();
  const [signature, setSignature] = useState<string>();
  const [failure, setFailure] = useState<string>();
  const account = embeddedEthereumAccount(wallets, walletId);

  // Every action reports its failure on the page instead of an unhandled rejection.
  const run = (action: () => Promise<unknown>) => () => {
    setFailure(undefined);
    action().catch((error: unknown) => setFailure(String((error as Error)?.message ?? error)));
  };

  if (clientState !== ClientState.Ready) return <p data-testid="loading">Loading…</p>;

  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', maxWidth: 640, margin: '2rem auto' }}>
      <h1>Keyhold embedded wallet</h1>
      {failure && (
        <p data-testid="failure" style={{ color: 'crimson' }}>
          {failure}
        </p>
      )}
      {authState !== AuthState.Authenticated ? (
        <button type="button" data-testid="login" onClick={run(() => handleLogin())}>
          Log in or sign up
        </button>
      ) : (
        <section>
          <p>
            Signed in as <b data-testid="user-name">{user?.userName}</b> (user{' '}
            <code data-testid="user-id">{session?.userId}</code>, organization{' '}
            <code data-testid="organization-id">{session?.organizationId}</code>)
          </p>
          <p>
            <button
              type="button"
              data-testid="create-wallet"
              onClick={run(async () => {
                const id = await createWallet({
                  walletName: `Wallet ${new Date().toISOString()}`,
                  accounts: ['ADDRESS_FORMAT_ETHEREUM'],
                });
                await refreshWallets();
                setWalletId(id);
                setSignature(undefined);
              })}
            >
              Create wallet
            </button>{' '}
            <button type="button" data-testid="logout" onClick={run(() => logout())}>
              Log out
            </button>
          </p>
          {account && (
            <div>
              <p>
                Address <code data-testid="address">{account.address}</code>
              </p>
              <p>
                <button
                  type="button"
                  data-testid="sign"
                  onClick={run(async () => {
                    const { r, s, v } = await handleSignMessage({
                      message: MESSAGE,
                      walletAccount: account,
                      addEthereumPrefix: true,
                    });
                    setSignature(JSON.stringify({ r, s, v }));
                  })}
                >
                  Sign “{MESSAGE}”
                </button>{' '}
                <button
                  type="button"
                  data-testid="export"
                  onClick={run(() => handleExportWallet({ walletId: account.walletId }))}
                >
                  Export wallet
                </button>
              </p>
              {signature && (
                <p>
                  Signature{' '}
                  <code data-testid="signature" style={{ overflowWrap: 'anywhere' }}>
                    {signature}
                  </code>
                </p>
              )}
            </div>
          )}
        </section>
      )}
    </main>
  );
}

/** The whole app: the kit's provider, configured for one Keyhold, around the wallet screen. */
export function App({ config }: { config: WalletKitConfig }) {
  return (
    <TurnkeyProvider
      config={{
        apiBaseUrl: config.apiBaseUrl,
        authProxyUrl: config.authProxyUrl,
        authProxyConfigId: config.authProxyConfigId,
        organizationId: config.organizationId,
        exportIframeUrl: config.exportIframeUrl,
        importIframeUrl: config.importIframeUrl,
        ui: { authModal: { methodOrder: ['email', 'passkey'] } },
      }}
      callbacks={{ onError: (error) => console.error('wallet kit:', error) }}
    >
      <WalletScreen />
    </TurnkeyProvider>
  );
}
