"""Rule engines: tiles, notation, hands, MCR and Sichuan scoring, referee audit."""
