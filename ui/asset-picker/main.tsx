import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../lib/panel.css';
import './picker.css';
import { AssetPickerApp } from './App.tsx';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <AssetPickerApp />
  </StrictMode>,
);
