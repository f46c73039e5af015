/** Where the built-in authorization server mounts (issuer `<public URL>/oauth`): its sign-in, consent and token endpoints. */
export const OAUTH_PATH = '/oauth';
