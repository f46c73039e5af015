-- Calibration of semantic and visual acceptance per vector space and scope (domain/calibration.ts):
-- the null distribution of similarities of unrelated pairs, estimated from the scope's own data when
-- it was indexed, as the median and robust spread (MAD) of Fisher-z-transformed cosine similarities.
-- `space` names the model ('asset_text:<model>', 'asset_visual:<model>', 'product:<model>'); `scope_id`
-- is the workspace (assets) or store (products). `items` is the corpus size the estimate was made on:
-- it is re-estimated when the corpus has grown or shrunk by a quarter.
CREATE TABLE vector_calibrations (
  space      TEXT NOT NULL,
  scope_id   TEXT NOT NULL,
  items      INTEGER NOT NULL,
  pairs      INTEGER NOT NULL,
  center     REAL NOT NULL,   -- median of atanh(cosine) over null pairs
  spread     REAL NOT NULL,   -- 1.4826 × MAD of atanh(cosine) over null pairs
  updated_at TEXT NOT NULL,
  PRIMARY KEY (space, scope_id)
) STRICT;
