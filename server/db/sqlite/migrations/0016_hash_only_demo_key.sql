-- The demo bundle in settings kept the demo API key in plain text so `seed-demo` and `npm start` could
-- print it again. Keys are stored only as their sha256 (api_keys.key_hash) like every other key: drop
-- the plain copy. The key keeps working; a new one is minted with `atelier seed-demo --new-key`.
UPDATE settings SET value = json_remove(value, '$.api_key') WHERE key = 'demo_bundle' AND json_valid(value);
