/** The message the app's "Sign" button signs, as an EIP-191 personal message. */
export const MESSAGE = 'Hello from Keyhold';
