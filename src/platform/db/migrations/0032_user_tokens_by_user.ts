// A user's one-time links (verification, password reset) are cancelled and counted by user and
// kind (a new link cancels the earlier ones; at most 5 of a kind an hour); without this
// index each of those statements read every merchant's links.
export const up = [`create index user_tokens_user on user_tokens(user_id, kind)`];
