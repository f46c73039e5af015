import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '@uppy/core/css/style.min.css';
import '@uppy/dashboard/css/style.min.css';
import '../lib/panel.css';
import './upload.css';
import { UploadApp } from './App.tsx';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <UploadApp />
  </StrictMode>,
);
