-- Calibrated acceptance on PostgreSQL (issue 16): the twin of the SQLite `vector_calibrations`
-- (server/db/migrations/0023). One null model (domain/calibration.ts) per vector space and scope: the
-- median (`center`) and robust spread (1.4826 × MAD, `spread`) of Fisher-z-transformed cosine
-- similarities of unrelated pairs, estimated on `items` vectors from `pairs` pairs. `space` names the
-- model ('asset_text:<model>:<dims>', 'asset_visual:<model>:<dims>', 'product:<model>'); `scope_id` is a
-- workspace (assets) or store (products) id. No foreign key: a scope id names either table.
-- double precision keeps the float64 values SQLite's REAL stores, exactly.

CREATE TABLE vector_calibrations (
  space      text COLLATE "C" NOT NULL,
  scope_id   text COLLATE "C" NOT NULL,
  items      integer NOT NULL,
  pairs      integer NOT NULL,
  center     double precision NOT NULL,
  spread     double precision NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (space, scope_id)
);
